import { ConsoleApiError } from "./console-api-error.js";
import { fetchWithin, readTimeoutMs } from "./fetch-within.js";

export { ConsoleApiError } from "./console-api-error.js";

async function parse<Result>(response: Response): Promise<Result> {
  if (response.status === 401) {
    // The session ended: the server answers the page itself with the login screen.
    window.location.reload();
  }
  const text = await response.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) {
    const error = (body.error ?? {}) as { code?: string; message?: string };
    throw new ConsoleApiError(
      response.status,
      error.code ?? "INTERNAL",
      error.message ?? `HTTP ${response.status}`,
    );
  }
  return body as Result;
}

/** Reads `path` (with query values) from the console API; the session cookie authenticates it. */
export async function getJson<Result>(
  path: string,
  query: Record<string, string | number | undefined> = {},
): Promise<Result> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const search = params.toString();
  // A read that never ends would stop the page's polling: it fails after `readTimeoutMs` instead.
  return fetchWithin(
    `/console/api/${path}${search ? `?${search}` : ""}`,
    { credentials: "same-origin" },
    readTimeoutMs,
    parse<Result>,
  );
}

/** Sends a state-changing JSON request to the console API (the browser adds the Origin header the server checks). */
export async function postJson<Result>(path: string, body: unknown): Promise<Result> {
  const response = await fetch(`/console/api/${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return parse<Result>(response);
}

/** Calls one action of a project's service through the console (`shell.list`, `task.run`, …). */
export function serviceCommand<Result>(
  agent: string,
  service: string,
  action: string,
  payload: Record<string, unknown> = {},
): Promise<Result> {
  return postJson<{ result: Result }>("command", { agent, service, action, payload }).then(
    (answer) => answer.result,
  );
}

/** The URL of a console server-sent event stream. */
export function streamUrl(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  return `/console/api/${path}?${params.toString()}`;
}

/** Data the server put in the page's `<meta name="downcity-<name>">` tag, read once (it is stale after that). */
export function pageData<Value>(name: string): Value | undefined {
  const meta = document.querySelector(`meta[name="downcity-${name}"]`);
  const content = meta?.getAttribute("content");
  meta?.remove();
  if (!content) return undefined;
  try {
    return JSON.parse(content) as Value;
  } catch {
    return undefined;
  }
}
