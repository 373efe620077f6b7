import type { ModelMessage, ToolSet } from "ai";
import { journaledModel } from "./journal-middleware.js";
import { journaledTools } from "./journaled-tools.js";
import type { ResumePoint } from "./resume-point.js";
import { claimLostError } from "./run-handover.js";
import { createRunRecorder } from "./run-recorder.js";
import type { RunSettlement } from "./run-result.js";
import type { PendingRun, RunDeps, RunScope } from "./run-scope.js";
import type { StreamRunOptions } from "./stream-run.js";

/**
 * Starts journaling a run when the runtime has a journal: writes its `run` record, and records
 * each reply the run delivers. Returns nothing when runs are not journaled.
 */
export async function beginRunJournal(
  deps: RunDeps,
  scope: RunScope,
  batch: readonly PendingRun[],
  resume?: ResumePoint,
): Promise<void> {
  if (!deps.journal) return;
  const recorder = createRunRecorder({
    journal: deps.journal,
    requestId: scope.requestId,
    redact: deps.redact ?? ((value) => value),
    logger: deps.logger,
    now: deps.now,
    ...(deps.journalHashes ? { hashes: deps.journalHashes } : {}),
    onFenced: () => {
      if (!scope.activeRun.signal.aborted) scope.activeRun.abort(claimLostError());
    },
  });
  scope.recorder = recorder;
  const deliver = scope.deliver;
  scope.deliver = (text, via, to, files) =>
    deliver(text, via, to, files).then((delivered) => {
      const { key, step } = delivered.reply;
      recorder.reply({ via, contextId: delivered.contextId, text, key, step });
      return delivered;
    });
  if (resume) {
    deps.logger.info(
      { attempt: resume.attempt, fromStep: resume.finishedSteps, closedCalls: resume.closedCalls.length },
      "resuming the run from its journal",
    );
    const journal = deps.journal;
    const point = await recorder.resumed(resume, "restart", deps.workerId, () =>
      journal.read(scope.requestId),
    );
    // The run continues from the refreshed point (the pipeline reads `resume` after this).
    if (point !== resume) Object.assign(resume, point);
    // Replies continue after the steps the journal holds; keys earlier attempts used stay theirs.
    const used = resume.records.flatMap((record) => (record.type === "reply" ? [record.key] : []));
    scope.replyKeys.continueRun({ finishedSteps: recorder.step(), used });
    return;
  }
  const model = deps.model;
  const { channel, chatId, userId } = scope.requestContext;
  const threadId = batch[0]?.message.threadId;
  recorder.begin({
    contextId: scope.contextId,
    messageIds: batch.map((pending) => pending.historyMessage.id),
    eventIds: batch.flatMap((pending) => (pending.message.messageId ? [pending.message.messageId] : [])),
    origin: batch.every((pending) => pending.message.origin === "internal") ? "internal" : "user",
    ...(channel
      ? {
          route: {
            channel,
            ...(chatId ? { chatId } : {}),
            ...(userId ? { userId } : {}),
            ...(threadId ? { threadId } : {}),
          },
        }
      : {}),
    ...(deps.workerId ? { worker: deps.workerId } : {}),
    ...(model
      ? {
          model:
            typeof model === "string"
              ? { provider: model.split(":")[0] ?? "gateway", modelId: model }
              : { provider: model.provider, modelId: model.modelId },
        }
      : {}),
    settings: { maxSteps: deps.maxSteps, keepLast: deps.keepLast },
  });
}

/**
 * The stream options of a journaled run: the model behind the journal's middleware, its tools
 * journaled. Each model stream continues the steps the journal holds as finished: a resumed run's
 * earlier attempts, and the steps a stream replaced by a retry (a failed model call, a context-window
 * overflow) had finished, so the model is not asked for them again and their tools do not run again.
 */
export function journaledStream(
  scope: RunScope,
  stream: StreamRunOptions,
  system: ModelMessage[],
  resume?: ResumePoint,
): StreamRunOptions {
  const recorder = scope.recorder;
  if (!recorder) return stream;
  // Steps from here on are this attempt's (a resumed run's closing step is in `resume.messages`).
  const firstStep = recorder.step();
  const carried = { stream: 0, messages: [...(resume?.messages ?? [])] as unknown[] };
  recorder.system(system);
  const tools: ToolSet = journaledTools(stream.tools, recorder);
  recorder.toolsOffered(stream.tools);
  return {
    ...stream,
    model: journaledModel(
      stream.model,
      { report: (call) => recorder.modelCall(call), opened: (close) => recorder.modelCallOpened(close) },
      () => carried,
    ),
    tools,
    // A resumed or retried run has used steps already: the limit counts them.
    priorSteps: () => recorder.step(),
    // Called as each model stream starts: a retry's stream carries the steps finished before it.
    onWindow: (ids) => {
      carried.stream++;
      if (carried.stream > 1) {
        const finished = recorder
          .records()
          .flatMap((record) => (record.type === "step" && record.step >= firstStep ? record.messages : []));
        carried.messages = [...(resume?.messages ?? []), ...finished];
        recorder.retried();
      }
      recorder.windowSent(ids);
      stream.onWindow(ids);
    },
    // Not async functions: their promises would be two more a step.
    onStepFinished: (step) => recorder.stepFinished(step).then(() => stream.onStepFinished?.(step)),
  };
}

/** Writes the run's `end` record from how it settled. */
export function endRunJournal(scope: RunScope, settlement: RunSettlement): Promise<void> | undefined {
  const recorder = scope.recorder;
  if (!recorder) return undefined;
  if (!settlement.ok) {
    const { code, message } = settlement.error as Error & { code?: string };
    return recorder.end({ outcome: "failed", error: { ...(code ? { code } : {}), message } });
  }
  if (settlement.result.aborted)
    return recorder.end({ outcome: "aborted", reason: settlement.result.aborted.reason });
  return recorder.end({ outcome: "completed" });
}
