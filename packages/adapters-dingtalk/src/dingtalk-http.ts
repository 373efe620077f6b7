import { DingtalkApiError } from "./dingtalk-api-error.js";

/** How long one API call may take [15 s]. */
const defaultTimeoutMs = 15_000;

/** The reason a fetch failed before any answer (a refused connection, a timeout), without its URL. */
export function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return cause ?? (error as Error).name ?? "network error";
}

/** Parses an answer's JSON body (an empty or non-JSON body, such as a gateway error page, is `{}`). */
function parseBody(text: string): Record<string, unknown> {
  try {
    const parsed = text ? (JSON.parse(text) as unknown) : {};
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The wait a throttled answer asks for: `Retry-After` in seconds, else one second. */
function retryAfterOf(response: Response): number | undefined {
  const header = Number(response.headers.get("retry-after") ?? Number.NaN);
  if (Number.isFinite(header) && header >= 0) return Math.ceil(header * 1000);
  return response.status === 429 ? 1000 : undefined;
}

/**
 * POSTs JSON to `url` and returns the JSON answer, or throws `DingtalkApiError` carrying the platform's
 * status and code (`{code, message}` on api.dingtalk.com, `{errcode, errmsg}` on oapi). `what` names the
 * call in errors; the URL is never part of one (oapi puts the access token in its query).
 */
export async function postJson<T>(
  what: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(defaultTimeoutMs),
    });
  } catch (error) {
    throw new DingtalkApiError(0, undefined, `${what} failed: ${networkReason(error)}`);
  }
  return answerOf<T>(what, response);
}

/** Reads an answer: the JSON body when the call succeeded, else a `DingtalkApiError`. */
export async function answerOf<T>(what: string, response: Response): Promise<T> {
  const fields = parseBody(await response.text());
  const errcode = typeof fields.errcode === "number" ? fields.errcode : undefined;
  if (response.ok && (errcode === undefined || errcode === 0)) return fields as T;
  const code =
    typeof fields.code === "string" ? fields.code : errcode === undefined ? undefined : String(errcode);
  const detail =
    typeof fields.message === "string"
      ? fields.message
      : typeof fields.errmsg === "string"
        ? fields.errmsg
        : response.statusText;
  throw new DingtalkApiError(
    response.status,
    code,
    `${what} answered ${response.status}${code === undefined ? "" : ` (${code})`}: ${detail}`,
    retryAfterOf(response),
  );
}
