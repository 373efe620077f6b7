import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
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
  /** "stream": the SDK's downloads (message resources) want the body as a Node stream. */
  responseType?: string;
  /** The SDK's downloads want `{ data, headers }` instead of the body alone. */
  $return_headers?: boolean;
}

/** How long a download may wait for its response headers; its body is bounded by the caller's signal. */
const streamHeadersTimeoutMs = 30_000;

const isMultipart = (headers: Record<string, string>) =>
  Object.entries(headers).some(
    ([key, value]) => key.toLowerCase() === "content-type" && value.startsWith("multipart/form-data"),
  );

/**
 * The SDK's uploads (`im/v1/images`, `im/v1/files`) pass a plain object under a multipart content type (axios
 * would encode it): bytes become a file part named after `file_name` when there is one, the rest text fields.
 */
function formData(data: Record<string, unknown>): FormData {
  const form = new FormData();
  const fileName = typeof data.file_name === "string" ? data.file_name : "upload";
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Uint8Array) form.append(key, new Blob([new Uint8Array(value)]), fileName);
    else form.append(key, String(value));
  }
  return form;
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

/** The body of a request: JSON, or multipart form data for the SDK's uploads (headers adjusted to match). */
function requestBody(
  config: RequestOptions,
  method: string,
  headers: Record<string, string>,
): string | FormData | undefined {
  if (config.data === undefined || method === "GET" || method === "HEAD") return undefined;
  if (isMultipart(headers) && typeof config.data === "object" && config.data !== null) {
    // fetch writes the multipart boundary into the content type itself.
    for (const key of Object.keys(headers)) if (key.toLowerCase() === "content-type") delete headers[key];
    return formData(config.data as Record<string, unknown>);
  }
  headers["content-type"] ??= "application/json; charset=utf-8";
  return JSON.stringify(config.data);
}

/** The error for a non-2xx answer: status, Lark's code and message, and the wait a rate limit names. */
function httpError(response: Response, answer: unknown, what: string): FeishuHttpError {
  const code =
    typeof (answer as { code?: unknown }).code === "number" ? (answer as { code: number }).code : undefined;
  const msg =
    typeof (answer as { msg?: unknown }).msg === "string"
      ? (answer as { msg: string }).msg
      : response.statusText;
  const reset =
    response.headers.get("x-ogw-ratelimit-reset") ?? response.headers.get("retry-after") ?? undefined;
  const seconds = reset === undefined ? Number.NaN : Number(reset);
  return new FeishuHttpError(
    response.status,
    code,
    `${what} answered ${response.status}${code === undefined ? "" : ` (code ${code})`}: ${msg}`,
    Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined,
  );
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
    const body = requestBody(config, method, headers);
    const streamed = config.responseType === "stream";
    // A download's body may take longer than any fixed timeout: only its headers are timed here.
    const aborter = new AbortController();
    const timer = setTimeout(
      () => aborter.abort(new DOMException("timed out", "TimeoutError")),
      streamed ? streamHeadersTimeoutMs : (config.timeout ?? options.timeoutMs ?? 15_000),
    );
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: aborter.signal,
      });
    } catch (error) {
      clearTimeout(timer);
      const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
      throw new FeishuHttpError(0, undefined, `${method} ${new URL(url).pathname} failed: ${reason}`);
    }
    if (streamed && response.ok) {
      clearTimeout(timer);
      const data = response.body
        ? Readable.fromWeb(response.body as WebReadableStream<Uint8Array>)
        : Readable.from([]);
      return config.$return_headers ? { data, headers: Object.fromEntries(response.headers) } : data;
    }
    const text = await response.text().finally(() => clearTimeout(timer));
    let answer: unknown = text;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      // A non-JSON answer (a proxy's HTML error page) is reported by status below.
    }
    if (response.ok) return answer;
    throw httpError(response, answer, `${method} ${new URL(url).pathname}`);
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
