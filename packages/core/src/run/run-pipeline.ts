import type { LanguageModel } from "ai";
import { runWithRequestContext } from "../context/request-context.js";
import type { HistoryMessage } from "../history/history-message.js";
import type { LaneRunner } from "../lanes/lane-scheduler.js";
import { buildSystemMessages } from "../prompt/build-system-messages.js";
import type { ActiveRun } from "./active-runs.js";
import { finishRun } from "./finish-run.js";
import { appendUnlessStored, storedBatchMessages } from "./persisted-messages.js";
import { findResumePoint, type ResumePoint } from "./resume-point.js";
import type { RunAbortedError } from "./run-aborted-error.js";
import { createRunArrivals } from "./run-arrivals.js";
import { claimLostError, handedOver, isHandover, stopIfHandedOver } from "./run-handover.js";
import { beginRunJournal, endRunJournal, journaledStream } from "./run-journaling.js";
import type { RunOutcome, RunSettlement } from "./run-result.js";
import { type PendingRun, type RunDeps, type RunScope, runContextOf } from "./run-scope.js";
import { assembleRunTools } from "./run-tools.js";
import { emptyUsage } from "./run-usage.js";
import { openRunScope, stampRequest, startRun } from "./start-run.js";
import { streamRun } from "./stream-run.js";

/** The messages a run answers: the batch that started it, then those that joined at step boundaries. */
interface RunLane {
  batch: PendingRun[];
  participants: PendingRun[];
  drain: () => PendingRun[];
  resume?: ResumePoint;
  /** The batch's stored copies, looked up once for the resume check and the start (absent when that failed). */
  stored?: HistoryMessage[];
  /** The batch was appended with the lookup (none of it was stored). */
  appended?: boolean;
}

/**
 * The lane runner of a runtime: each batch of a context's queued messages becomes one run that goes
 * start, tools, prompt, stream (with the watchdog and context-overflow retries), finish; every
 * message the run answered then settles with its result or its error.
 */
export function createRunPipeline(deps: RunDeps): LaneRunner<PendingRun> {
  return async (contextId, drain) => {
    const batch = drain();
    const first = batch[0];
    if (!first) return;
    const { requestId, known, activeRun } = await registerRun(deps, contextId, batch);
    try {
      const scope = await openRunScope(deps, { contextId, requestId }, first, activeRun);
      const lane: RunLane = { batch, participants: [...batch], drain, ...known };
      const settlement = await runWithRequestContext(scope.requestContext, () => runBatch(deps, scope, lane));
      // A handed-over run is the new owner's to end: its journal stays open so it continues there.
      if (!isHandover(settlement)) await endRunJournal(scope, settlement);
      for (const participant of lane.participants) {
        if (settlement.ok) participant.resolve(settlement.result);
        else participant.reject(settlement.error);
      }
    } finally {
      activeRun.end();
    }
  };
}

/**
 * Looks the batch up and registers its run. From the drain of its batch to its registration the run
 * is starting: a cancel of its context meanwhile is kept and aborts the run as it registers (see
 * `StartingRun`); messages still queued behind it are not starting and no cancel reaches them.
 */
async function registerRun(
  deps: RunDeps,
  contextId: string,
  batch: PendingRun[],
): Promise<{ requestId: string; known: Omit<BatchLookup, "requestId">; activeRun: ActiveRun }> {
  const starting = deps.activeRuns.starting(contextId);
  try {
    const { requestId, ...known } = await lookUpBatch(deps, contextId, batch);
    return { requestId, known, activeRun: starting.register(requestId) };
  } catch (error) {
    starting.abandon();
    throw error;
  }
}

/** What the lookup of a batch found: its run's id, and what `RunLane` keeps of it. */
type BatchLookup = { requestId: string } & Pick<RunLane, "resume" | "stored" | "appended">;

/**
 * A batch's run id and what is known of its stored copies before the run starts. A run a crash
 * cut off continues under its own id, from its journal. A batch with a channel's route (the run's
 * scope reads no history for it) is stamped and appended in the same round trip as the replay
 * check, unless some of it is stored already; then nothing was written and the run resumes or
 * starts as a replay. A failed lookup only means no resume here; the start looks again and fails
 * the run if the store is down.
 */
async function lookUpBatch(deps: RunDeps, contextId: string, batch: PendingRun[]): Promise<BatchLookup> {
  const history = deps.history(contextId);
  let stored: HistoryMessage[] | undefined;
  let generated: string | undefined;
  if (batch[0]?.message.channel) {
    generated = deps.generateId();
    for (const pending of batch) stampRequest(pending, generated);
    const messages = batch.map((pending) => pending.historyMessage);
    stored = await appendUnlessStored(history, messages, { sync: false }).catch(() => undefined);
    if (stored?.length === 0) return { requestId: generated, stored, appended: true };
  } else stored = await storedBatchMessages(history, batch).catch(() => undefined);
  // Only a batch stored before (a replayed event) can have a run to resume.
  const resume =
    deps.journal && stored && stored.length > 0
      ? await findResumePoint(deps.journal, stored, batch).catch(() => undefined)
      : undefined;
  const requestId = resume?.requestId ?? generated ?? deps.generateId();
  return { requestId, ...(resume ? { resume } : {}), ...(stored ? { stored } : {}) };
}

/**
 * One run through the pipeline's stages; whatever happens, it ends in `finishRun`, unless another
 * worker took its event over: then it ends at a step boundary and leaves history and replies to
 * the new owner.
 */
async function runBatch(deps: RunDeps, scope: RunScope, lane: RunLane): Promise<RunSettlement> {
  try {
    const outcome = await runStages(deps, scope, lane);
    if (runLost(scope, lane)) return handOver(deps, scope);
    return "settled" in outcome ? outcome.settled : await finishRun(deps, scope, outcome);
  } catch (error) {
    if (runLost(scope, lane)) return handOver(deps, scope);
    return finishRun(deps, scope, { status: "failed", error });
  }
}

/**
 * True once the run is another worker's: its claim on the event was lost, or the journal refused
 * a write because another worker resumed the run under a newer attempt.
 */
function runLost(scope: RunScope, lane: RunLane): boolean {
  return handedOver(lane.participants) || scope.recorder?.fenced() === true;
}

/** Settles a run another worker took over: no history, no reply, no journal end (the new owner writes them). */
function handOver(deps: RunDeps, scope: RunScope): RunSettlement {
  const error = claimLostError();
  const { contextId, requestId } = scope;
  deps.logger.warn(
    { contextId, requestId },
    "run stopped: another worker took its event over and continues it from the journal",
  );
  deps.emit({ type: "run-error", contextId, requestId, code: error.code, message: error.message });
  return { ok: false, error };
}

/** A run ready to stream: its model, tools and prompt. */
interface PromptedRun {
  model: LanguageModel;
  arrivals: ReturnType<typeof createRunArrivals>;
  tools: Awaited<ReturnType<typeof assembleRunTools>>;
  system: Awaited<ReturnType<typeof buildSystemMessages>>;
}
type PreparedRun = { settled: RunSettlement } | { outcome: RunOutcome } | { prompted: PromptedRun };

/** Starts, journals and streams a run: its outcome to finish, or a settlement it already has. */
async function runStages(
  deps: RunDeps,
  scope: RunScope,
  lane: RunLane,
): Promise<RunOutcome | { settled: RunSettlement }> {
  // From the start to the prompt, the readers of the context's history meta share one read.
  const release = deps.shareMeta?.(scope.contextId);
  let prepared: PreparedRun;
  try {
    prepared = await prepareRun(deps, scope, lane);
  } finally {
    release?.();
  }
  if ("settled" in prepared) return prepared;
  if ("outcome" in prepared) return prepared.outcome;
  return await streamPrepared(deps, scope, lane, prepared.prompted);
}

/** Starts and journals a run and builds its tools and prompt (or settles it when it need not run). */
async function prepareRun(deps: RunDeps, scope: RunScope, lane: RunLane): Promise<PreparedRun> {
  const started = await startRun(deps, scope, lane.batch, lane);
  if ("answered" in started) return { settled: { ok: true, result: started.answered } };
  await beginRunJournal(deps, scope, lane.batch, lane.resume);
  if (handedOver(lane.participants)) return { settled: { ok: false, error: claimLostError() } };
  const stopped = stoppedBeforeStream(deps, scope);
  if (stopped) return { outcome: stopped };
  // The journal holds the answer already (the crash came between the last step and the reply).
  if (lane.resume?.finalText !== undefined)
    return {
      outcome: { status: "completed", finalText: lane.resume.finalText, steps: [], usage: emptyUsage() },
    };
  const arrivals = createRunArrivals(deps, scope, lane);
  const context = runContextOf(deps, scope, lane.batch);
  const tools = await assembleRunTools(deps, scope, { context, visibleMessageIds: arrivals.visibleIds });
  const system = await buildSystemMessages({
    rootDir: deps.rootDir,
    requestContext: scope.requestContext,
    promptProviders: deps.promptProviders,
    toolNames: Object.keys(tools),
    logger: deps.logger,
    now: deps.now(),
    rendering: scope.requestContext.channel ? deps.renderings?.get(scope.requestContext.channel) : undefined,
    ...(deps.readProfile ? { readProfile: deps.readProfile } : {}),
  });
  return { prompted: { model: started.model, arrivals, tools, system } };
}

/** Streams a prepared run through the journal: its outcome to finish. */
async function streamPrepared(
  deps: RunDeps,
  scope: RunScope,
  lane: RunLane,
  { model, arrivals, tools, system }: PromptedRun,
): Promise<RunOutcome | { settled: RunSettlement }> {
  // A cancel that came while the tools and the prompt were built: no model call.
  const stopped = stoppedBeforeStream(deps, scope);
  if (stopped) return stopped;
  const stream = journaledStream(
    scope,
    {
      model,
      contextId: scope.contextId,
      requestId: scope.requestId,
      system: system.messages,
      runtimeNote: system.runtimeNote,
      systemTokens: system.tokens,
      tools,
      ...(system.activeTools ? { activeTools: system.activeTools } : {}),
      maxSteps: deps.maxSteps,
      ...(deps.limits ? { limits: deps.limits } : {}),
      ...(deps.modelRetry ? { modelRetry: deps.modelRetry } : {}),
      keepLast: deps.keepLast,
      historyWindow: deps.historyWindow,
      activeRun: scope.activeRun,
      onWindow: arrivals.windowSent,
      onStepFinished: async () => {
        scope.replyKeys.stepFinished();
        // After the journal's write of the step: the new owner continues from it.
        stopIfHandedOver(lane.participants, scope.activeRun);
      },
      stopAfterStep: () => runLost(scope, lane),
      takeArrivals: arrivals.take,
      emit: deps.emit,
      logger: deps.logger,
    },
    system.messages,
    lane.resume,
  );
  return await streamRun(stream);
}

/**
 * The outcome of a run stopped before its model stream began (a cancel that came while it was
 * starting, or since): it ends aborted like a run stopped mid-stream, with no new steps and no
 * model call; the finish stores and sends the notice. Undefined while the run may go on.
 */
function stoppedBeforeStream(deps: RunDeps, scope: RunScope): RunOutcome | undefined {
  const { signal } = scope.activeRun;
  if (!signal.aborted) return undefined;
  const error = signal.reason as RunAbortedError;
  deps.logger.warn(
    { reason: error.reason, steps: 0 },
    `run aborted before its model stream began: ${error.message}`,
  );
  return { status: "aborted", error, parts: [], steps: [], usage: emptyUsage() };
}
