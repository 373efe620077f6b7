const marker = Symbol.for("downcity.error");

/** Every machine-readable failure Downcity reports; the daemon maps these to HTTP statuses. */
export type DowncityErrorCode =
  | "INVALID_INPUT"
  | "CONFIG_NOT_FOUND"
  | "CONFIG_INVALID"
  | "CONFIG_ENV_MISSING"
  | "MODEL_NOT_CONFIGURED"
  | "MODEL_ERROR"
  | "CONTEXT_WINDOW_EXCEEDED"
  | "HISTORY_LOCK_TIMEOUT"
  | "HISTORY_IO"
  | "RUNTIME_CLOSED"
  | "RUN_ABORTED"
  | "SERVICE_NOT_FOUND"
  | "ACTION_NOT_FOUND"
  | "SERVICE_ERROR"
  | "NOT_FOUND"
  | "CONFLICT"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "PLUGIN_FAILED"
  | "CHANNEL_SEND_FAILED"
  | "ACCESS_DENIED"
  | "INTERNAL";

/** Base error of every Downcity package: a code, a message naming the bad field and the fix, and a cause. */
export class DowncityError extends Error {
  readonly [marker] = true;
  readonly code: DowncityErrorCode;
  /** The dotted path of the offending input field, when one is to blame. */
  readonly field?: string;

  constructor(code: DowncityErrorCode, message: string, options: { cause?: unknown; field?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DowncityError";
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
  }

  /** True for any DowncityError, even one created by a second installed copy of this package. */
  static isInstance(error: unknown): error is DowncityError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }

  toJSON(): { code: DowncityErrorCode; message: string; field?: string } {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}
