import type { HttpInstance } from "@larksuiteoapi/node-sdk";

/** An HTTP failure of the open platform: status, Lark's `code`, and the wait a rate limit asked for. */
export class FeishuHttpError extends Error {
  readonly status: number;
  readonly code: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: number | undefined, message: string, retryAfterMs?: number) {
    super(message);
    this.name = "FeishuHttpError";
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}

interface RequestOptions {
  url?: string;
  method?: string;
  headers?: Record<string, unknown>;
  params?: Record<string, unknown>;
  data?: unknown;
  timeout?: number;
}

function withParams(url: string, params: Record<string, unknown> | undefined): string {
  if (!params) return url;
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === "") continue;
    for (const item of Array.isArray(value) ? value : [value]) target.searchParams.append(key, String(item));
  }
  return target.toString();
}

/**
 * The SDK's HTTP client on Node's fetch instead of axios: fetch ignores HTTP(S)_PROXY, so a proxy set for the
 * rest of the machine never captures the open platform on 127.0.0.1 (or anywhere), and errors never carry the
 * request body (which holds the app secret on token calls).
 */
export function createFetchHttpInstance(options: { timeoutMs?: number } = {}): HttpInstance {
  const request = async (config: RequestOptions): Promise<unknown> => {
    const url = withParams(config.url ?? "", config.params);
    const method = (config.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(config.headers ?? {}))
      if (value !== undefined && value !== null) headers[key] = String(value);
    const hasBody = config.data !== undefined && method !== "GET" && method !== "HEAD";
    if (hasBody) headers["content-type"] ??= "application/json; charset=utf-8";
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(hasBody ? { body: JSON.stringify(config.data) } : {}),
        signal: AbortSignal.timeout(config.timeout ?? options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new FeishuHttpError(0, undefined, `${method} ${new URL(url).pathname} failed: ${reason}`);
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      // A non-JSON answer (a proxy's HTML error page) is reported by status below.
    }
    if (response.ok) return body;
    const code =
      typeof (body as { code?: unknown }).code === "number" ? (body as { code: number }).code : undefined;
    const msg =
      typeof (body as { msg?: unknown }).msg === "string"
        ? (body as { msg: string }).msg
        : response.statusText;
    const reset =
      response.headers.get("x-ogw-ratelimit-reset") ?? response.headers.get("retry-after") ?? undefined;
    const seconds = reset === undefined ? Number.NaN : Number(reset);
    throw new FeishuHttpError(
      response.status,
      code,
      `${method} ${new URL(url).pathname} answered ${response.status}${code === undefined ? "" : ` (code ${code})`}: ${msg}`,
      Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined,
    );
  };
  const withBody =
    (method: string) =>
    (url: string, data?: unknown, config: RequestOptions = {}) =>
      request({ ...config, url, method, data });
  const withoutBody =
    (method: string) =>
    (url: string, config: RequestOptions = {}) =>
      request({ ...config, url, method });
  return {
    request,
    get: withoutBody("GET"),
    delete: withoutBody("DELETE"),
    head: withoutBody("HEAD"),
    options: withoutBody("OPTIONS"),
    post: withBody("POST"),
    put: withBody("PUT"),
    patch: withBody("PATCH"),
  } as unknown as HttpInstance;
}
