import type { ActiveRun } from "./active-runs.js";
import { RunAbortedError } from "./run-aborted-error.js";
import type { RunSettlement } from "./run-result.js";
import type { PendingRun } from "./run-scope.js";

/** True once another worker took over a message this run answers (the sender's claim on it was lost). */
export function handedOver(participants: readonly PendingRun[]): boolean {
  return participants.some((pending) => pending.handover?.aborted === true);
}

/** The error a handed-over run settles with: it stored and sent nothing more, the new owner finishes it. */
export function claimLostError(): RunAbortedError {
  return new RunAbortedError(
    "claim-lost",
    "Another worker took this run's event over (this worker's claim on it lapsed); it continues there from the run journal.",
  );
}

/**
 * Stops the run before its next step when it was handed over: called at each step boundary, after
 * the journal made the finished step durable, so the new owner continues from it and no tool of a
 * later step runs here.
 */
export function stopIfHandedOver(participants: readonly PendingRun[], activeRun: ActiveRun): void {
  if (handedOver(participants) && !activeRun.signal.aborted) activeRun.abort(claimLostError());
}

/** True for the settlement of a handed-over run: nothing of it is the journal's or history's to end. */
export function isHandover(settlement: RunSettlement): boolean {
  return (
    !settlement.ok && RunAbortedError.isInstance(settlement.error) && settlement.error.reason === "claim-lost"
  );
}
