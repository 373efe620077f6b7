import type { StepResult, ToolSet } from "ai";
import type { RunAbortedError } from "./run-aborted-error.js";

const continueHint = 'Say "continue" and I will pick up where I left off.';

/**
 * The chat text of a stopped run: what stopped it and, unless the user asked for the stop, that
 * saying "continue" resumes (the history keeps what the run did, so the next run sees it).
 */
export function abortNotice(error: RunAbortedError): string {
  if (error.reason === "cancelled") return error.message;
  return `${error.message} ${continueHint}`;
}

/**
 * True when the tool loop ended because it reached the step limit: a completed stream whose last
 * step still asked for tools (the model had not written its answer yet).
 */
export function reachedStepLimit(steps: ReadonlyArray<StepResult<ToolSet>>): boolean {
  return steps.at(-1)?.finishReason === "tool-calls";
}

/** The chat text of a run that reached the step limit before answering. */
export function stepLimitNotice(steps: number): string {
  return `I stopped after ${steps} steps, the most one run may take (run.maxSteps in downcity.json), before finishing. ${continueHint}`;
}

/** The history note after a failed run's steps: the tools above ran, the run gave no answer. */
export function failedRunNote(code: string): string {
  return `This run failed (${code}) before it answered; the tool calls above did run.`;
}
