const marker = Symbol.for("downcity.adapters-dingtalk.api-error");

/** A failed call to a DingTalk API: HTTP status, the platform's code, and its message (never a token or secret). */
export class DingtalkApiError extends Error {
  readonly [marker] = true;
  readonly status: number;
  /** The platform's code: a string on api.dingtalk.com ("Forbidden.AccessDenied..."), errcode on oapi. */
  readonly code: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: string | undefined, message: string, retryAfterMs?: number) {
    super(message);
    this.name = "DingtalkApiError";
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }

  /** True for a `DingtalkApiError`, also one from another copy of this package. */
  static isInstance(error: unknown): error is DingtalkApiError {
    return typeof error === "object" && error !== null && marker in error;
  }

  /** True when the platform refused the app's credentials (not a passing failure). */
  get credentialsRejected(): boolean {
    if (this.throttled) return false;
    return (
      this.status === 401 ||
      this.status === 403 ||
      (this.status === 400 && /secret|appkey|client/i.test(`${this.code} ${this.message}`))
    );
  }

  /** True when DingTalk throttled the call (HTTP 429, or its QPS-limit codes). */
  get throttled(): boolean {
    return this.status === 429 || /QpsLimit|Throttling|flowControl/i.test(this.code ?? "");
  }
}
