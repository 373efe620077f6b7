const MARKER = Symbol.for("downcity.shell.error");

/**
 * Machine-readable reason a shell engine call failed. SPAWN_FAILED is for hosts wrapping the
 * engine: the engine itself reports spawn failures as sessions with status `failed`.
 */
export type ShellErrorCode =
  | "SESSION_NOT_FOUND"
  | "SESSION_EXITED"
  | "INVALID_INPUT"
  | "SPAWN_FAILED"
  | "SERVICE_EXISTS"
  | "COMMAND_REFUSED"
  | "SANDBOX_UNAVAILABLE";

/** Typed error of the shell engine; the message names the bad field and the fix. */
export class ShellError extends Error {
  readonly [MARKER] = true;
  readonly code: ShellErrorCode;

  constructor(code: ShellErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ShellError";
    this.code = code;
  }

  /** Checks for a ShellError even across duplicate installs of this package. */
  static isInstance(value: unknown): value is ShellError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
