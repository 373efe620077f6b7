/** A failed call to the QQ bot OpenAPI: HTTP status, the platform's code, and its message (never the token). */
export class QqApiError extends Error {
  readonly status: number;
  readonly code: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: number | undefined, message: string, retryAfterMs?: number) {
    super(message);
    this.name = "QqApiError";
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }
}
