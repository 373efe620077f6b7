/** iLink's answer when the bot token is no longer valid: the binding must be renewed by a new scan. */
export const sessionExpiredCode = -14;

const marker = Symbol.for("downcity.weixin.api-error");

/** A failed iLink call: HTTP status (0 for no answer), iLink's `ret`/`errcode`, and its message (never the token). */
export class WeixinApiError extends Error {
  readonly [marker] = true;
  readonly status: number;
  readonly code: number | undefined;
  /** The wait a 429 asked for (`Retry-After`). */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, code: number | undefined, message: string, retryAfterMs?: number) {
    super(message);
    this.name = "WeixinApiError";
    this.status = status;
    this.code = code;
    this.retryAfterMs = retryAfterMs;
  }

  /** True for a WeixinApiError, also from another copy of this package. */
  static isInstance(error: unknown): error is WeixinApiError {
    return typeof error === "object" && error !== null && marker in error;
  }

  /** True when iLink says the bot token expired (errcode -14): only a new QR scan helps. */
  get sessionExpired(): boolean {
    return this.code === sessionExpiredCode;
  }
}
