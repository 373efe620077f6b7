import type { DowncityErrorCode } from "./error-codes.js";

export type { DowncityErrorCode } from "./error-codes.js";

const marker = Symbol.for("downcity.error");

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
