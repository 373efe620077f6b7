import { QqApiError } from "./qq-api-error.js";
import type { QqTokenSource } from "./qq-token-source.js";

/**
 * Calls the bot OpenAPI with `Authorization: QQBot <token>` and returns the JSON answer, or throws `QqApiError`.
 * The wait defaults to 15 s (the platform advises at least 5 s, or a sent message may look failed).
 */
export async function qqRequest<T>(
  settings: { apiBase: string; tokens: QqTokenSource },
  method: "GET" | "POST",
  path: string,
  body?: unknown,
  options: { timeoutMs?: number } = {},
): Promise<T> {
  const token = await settings.tokens.token();
  let response: Response;
  try {
    response = await fetch(`${settings.apiBase}${path}`, {
      method,
      headers: {
        authorization: `QQBot ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    throw new QqApiError(0, undefined, `${method} ${path} failed: ${reason}`);
  }
  const text = await response.text();
  let answer: unknown = {};
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    // A non-JSON answer (a gateway error page) is reported by its status.
  }
  if (response.ok) return answer as T;
  const fields = answer as { code?: unknown; err_code?: unknown; message?: unknown };
  const code =
    typeof fields.err_code === "number"
      ? fields.err_code
      : typeof fields.code === "number"
        ? fields.code
        : undefined;
  const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
  if (response.status === 401) settings.tokens.invalidate();
  throw new QqApiError(
    response.status,
    code,
    `${method} ${path} answered ${response.status}${code === undefined ? "" : ` (code ${code})`}: ${typeof fields.message === "string" ? fields.message : response.statusText}`,
    Number.isFinite(retryAfter) && retryAfter >= 0 ? Math.ceil(retryAfter * 1000) : undefined,
  );
}
