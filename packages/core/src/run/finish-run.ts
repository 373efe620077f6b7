import { DowncityError } from "../errors/downcity-error.js";
import type { HistoryMessage } from "../history/history-message.js";
import { errorFields } from "../logger/logger.js";
import { deliverFinalAnswer } from "./final-answer.js";
import { journalHistoryParts, shownToolCalls } from "./journal-history.js";
import { abortNotice, failedRunNote } from "./run-notice.js";
import type { AssistantPart, RunOutcome, RunResult, RunSettlement, StreamedSteps } from "./run-result.js";
import type { RunDeps, RunScope } from "./run-scope.js";
import { stepsToParts } from "./steps-to-parts.js";

type FinishDeps = Pick<RunDeps, "emit" | "logger" | "generateId" | "now">;

/**
 * Finishes a run, whatever its outcome. A completed run delivers its final answer (`final-answer.ts`)
 * and stores its steps; a stopped run stores what it had with a notice saying why and
 * sends the notice like a reply; both end with `run-end`. A failed run (or a finish that fails)
 * ends with `run-error` and settles with the error; a journaled one that ran anything stores that
 * too. A journaled run's steps are stored from its journal (every attempt's, see `journal-history.ts`).
 */
export async function finishRun(
  deps: FinishDeps,
  scope: RunScope,
  outcome: RunOutcome,
): Promise<RunSettlement> {
  if (outcome.status === "failed") return failed(deps, scope, outcome.error);
  try {
    const result =
      outcome.status === "completed"
        ? await completed(deps, scope, outcome)
        : await aborted(deps, scope, outcome);
    return { ok: true, result };
  } catch (error) {
    return failed(deps, scope, error);
  }
}

/** The parts of the steps a run finished: from its journal when it has one, else from this stream's steps. */
function stepParts(scope: RunScope, steps: StreamedSteps["steps"], unfinishedError: string): AssistantPart[] {
  return scope.recorder
    ? journalHistoryParts(scope.recorder.records(), unfinishedError)
    : stepsToParts(steps);
}

async function completed(
  deps: FinishDeps,
  scope: RunScope,
  outcome: Extract<RunOutcome, { status: "completed" }>,
): Promise<RunResult> {
  const answer = await deliverFinalAnswer(scope, outcome);
  const steps = stepParts(scope, outcome.steps, "no result was recorded");
  const message = await record(deps, scope, [...steps, ...answer.parts]);
  return ended(deps, scope, outcome, { text: answer.text, message });
}

async function aborted(
  deps: FinishDeps,
  scope: RunScope,
  outcome: Extract<RunOutcome, { status: "aborted" }>,
): Promise<RunResult> {
  const { reason } = outcome.error;
  const notice = abortNotice(outcome.error);
  // What the run did is stored first: a channel that fails to take the notice must not lose it.
  const steps = stepParts(scope, outcome.steps, `aborted: ${outcome.error.message}`);
  // A call of the cut-off step shows once, with its journaled outcome when it had one.
  const shown = shownToolCalls(steps);
  const unfinished = outcome.parts.filter(
    (part) => part.type !== "dynamic-tool" || !shown.has(part.toolCallId),
  );
  const parts = [...steps, ...unfinished, { type: "text" as const, text: notice }];
  const message = await record(deps, scope, parts, { aborted: reason });
  await scope
    .deliver(notice, "final-text")
    .catch((error: unknown) => deps.logger.warn(errorFields(error), "could not deliver the abort notice"));
  return ended(deps, scope, outcome, { text: notice, message, aborted: { reason, message: notice } });
}

/** Appends the run's assistant message to history (marked when the run was stopped or failed). */
async function record(
  deps: FinishDeps,
  scope: RunScope,
  parts: AssistantPart[],
  ended: { aborted?: NonNullable<RunResult["aborted"]>["reason"]; failed?: string } = {},
): Promise<HistoryMessage> {
  const { contextId, requestId } = scope;
  const message: HistoryMessage = {
    id: deps.generateId(),
    role: "assistant",
    parts,
    metadata: {
      createdAt: deps.now().toISOString(),
      contextId,
      requestId,
      ...ended,
    },
  };
  await scope.history.append(message);
  return message;
}

/** Announces the end of a completed or stopped run and builds its result. */
function ended(
  deps: FinishDeps,
  scope: RunScope,
  { steps, usage }: StreamedSteps,
  end: Pick<RunResult, "text" | "message" | "aborted">,
): RunResult {
  const { contextId, requestId } = scope;
  const result: RunResult = { contextId, requestId, ...end, steps: steps.length, usage };
  deps.emit({
    type: "run-end",
    contextId,
    requestId,
    text: end.text,
    steps: steps.length,
    usage,
    ...(end.aborted ? { aborted: end.aborted } : {}),
  });
  if (end.aborted)
    deps.logger.warn({ reason: end.aborted.reason, steps: steps.length, ...usage }, "run aborted");
  else deps.logger.info({ steps: steps.length, ...usage }, "run finished");
  return result;
}

/**
 * Settles a failed run with a DowncityError. A journaled run that ran steps or tools leaves them in
 * history first, marked `failed` with the error code: the
 * next run sees what this one did, and a retried event is run again rather than taken as answered.
 */
async function failed(deps: FinishDeps, scope: RunScope, error: unknown): Promise<RunSettlement> {
  const { contextId, requestId } = scope;
  const failure = DowncityError.isInstance(error)
    ? error
    : new DowncityError(
        "MODEL_ERROR",
        `The agent run failed: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
  deps.logger.error({ contextId, requestId, ...errorFields(failure) }, "agent run failed");
  const steps = scope.recorder ? journalHistoryParts(scope.recorder.records(), "the run failed") : [];
  // The note is a step of its own: the last prompt message is then no tool result (the runtime
  // note of a retried event goes before the newest message and must not split a tool call from it).
  const note = [
    { type: "step-start" as const },
    { type: "text" as const, text: failedRunNote(failure.code) },
  ];
  if (steps.length > 0)
    await record(deps, scope, [...steps, ...note], {
      failed: failure.code,
    }).catch((storeError: unknown) =>
      deps.logger.warn(errorFields(storeError), "could not store the failed run's steps in history"),
    );
  deps.emit({ type: "run-error", contextId, requestId, code: failure.code, message: failure.message });
  return { ok: false, error: failure };
}
