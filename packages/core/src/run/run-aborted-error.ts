import { DowncityError } from "../errors/downcity-error.js";

/**
 * Why a run stopped before it finished. `claim-lost`: another worker took the run's event over (this
 * worker's claim lapsed); the run stopped at a step boundary and the new owner continues it from its journal.
 */
export type RunAbortReason =
  | "cancelled"
  | "shutdown"
  | "step-timeout"
  | "run-timeout"
  | "idle-timeout"
  | "claim-lost";

const marker = Symbol.for("downcity.run-aborted");

/** The abort reason a run's signal carries: a `RUN_ABORTED` error saying what stopped the run. */
export class RunAbortedError extends DowncityError {
  readonly [marker] = true;
  readonly reason: RunAbortReason;

  constructor(reason: RunAbortReason, message: string, options: { cause?: unknown; field?: string } = {}) {
    super("RUN_ABORTED", message, options);
    this.name = "RunAbortedError";
    this.reason = reason;
  }

  /** True for a RunAbortedError, even one from another copy of this package. */
  static override isInstance(value: unknown): value is RunAbortedError {
    return typeof value === "object" && value !== null && marker in value;
  }
}
