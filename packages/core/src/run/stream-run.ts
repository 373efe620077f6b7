import { type LanguageModel, type ModelMessage, type StepResult, stepCountIs, type ToolSet } from "ai";
import { withModelPurpose } from "../context/model-purpose.js";
import type { Logger } from "../logger/logger.js";
import type { HistoryWindow } from "../prompt/history-window.js";
import { withRuntimeNote } from "../prompt/runtime-note.js";
import type { ActiveRun } from "./active-runs.js";
import { retryOnContextOverflow } from "./context-overflow-retry.js";
import { streamFailure } from "./model-failure.js";
import { defaultModelRetry, type ModelRetryPolicy, retryModelCalls } from "./model-retry.js";
import type { RunAbortedError } from "./run-aborted-error.js";
import { releasableHold, withRunHold } from "./run-hold.js";
import { createRunProgress, type RunProgress } from "./run-progress.js";
import type { RunOutcome } from "./run-result.js";
import { createRunWatchdog, defaultRunLimits, type RunLimits, type RunWatchdog } from "./run-watchdog.js";
import type { RuntimeEvent } from "./runtime-event.js";
import { runStepLoop } from "./step-loop/step-loop.js";
import { createStreamEvents, type StreamEvents } from "./stream-events.js";

/** How a streamed run ended: it completed, or a cancel, a limit or shutdown stopped it. */
export type StreamedRun = Exclude<RunOutcome, { status: "failed" }>;

/** Options of `streamRun`. */
export interface StreamRunOptions {
  model: LanguageModel;
  contextId: string;
  requestId: string;
  system: ModelMessage[];
  /** This turn's facts, sent before the newest message so the system prefix and older history stay the same turn after turn. */
  runtimeNote?: ModelMessage;
  systemTokens: number;
  tools: ToolSet;
  activeTools?: string[];
  maxSteps: number;
  /** Steps the run finished before this stream (a resumed or retried run): they count against `maxSteps`. */
  priorSteps?: () => number;
  /** Step, run and stream-idle time limits [defaultRunLimits]. */
  limits?: Partial<RunLimits>;
  /** Newest history messages sent verbatim (halved on each context-window overflow). */
  keepLast: number;
  historyWindow: HistoryWindow;
  /** Cancel and shutdown abort its signal; a watchdog limit aborts it too (tools and hosts watch it). */
  activeRun: ActiveRun;
  /** Called with the ids of the history messages the model sees. */
  onWindow: (ids: Set<string>) => void;
  /** Called between steps: messages that arrived meanwhile, already persisted, to add to the prompt. */
  takeArrivals: (step: number) => Promise<ModelMessage[]>;
  emit: (event: RuntimeEvent) => void;
  logger: Logger;
  now?: () => number;
  /** How long transient model failures are retried [defaultModelRetry]. */
  modelRetry?: Partial<ModelRetryPolicy>;
  /** Awaited at each step boundary, before the next step begins (the run journal's write). */
  onStepFinished?: (step: StepResult<ToolSet>) => Promise<void>;
  /** Asked after each step: true starts no further step (the run's claim went to another worker). */
  stopAfterStep?: () => boolean;
}

/** One run's model streams and what they share: the watchdog, the progress and the event translation. */
interface RunStream {
  options: StreamRunOptions;
  watchdog: RunWatchdog;
  progress: RunProgress;
  events: StreamEvents;
  stopped: Promise<"stopped">;
  windowSent: number;
}

/**
 * Streams the tool loop over the system messages plus the history window. Messages arriving mid-run
 * join at step boundaries; a context-window overflow compacts and retries with a smaller window; a
 * watchdog bounds steps, the run and stream silence. A stopped run returns what it had; a failed
 * model call throws a DowncityError.
 */
export async function streamRun(options: StreamRunOptions): Promise<StreamedRun> {
  const { activeRun, logger } = options;
  const limits = { ...defaultRunLimits, ...options.limits };
  const watchdog = createRunWatchdog({ limits, parent: activeRun.signal });
  const signal = watchdog.signal;
  signal.addEventListener("abort", () => activeRun.abort(signal.reason as RunAbortedError), { once: true });
  const stopped = new Promise<"stopped">((resolve) => {
    if (signal.aborted) resolve("stopped");
    else signal.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  const progress = createRunProgress();
  const now = options.now ?? Date.now;
  const events = createStreamEvents({ ...options, progress, watchdog, now });
  const run: RunStream = { options, watchdog, progress, events, stopped, windowSent: 0 };
  // Tools that wait for a person pause the run's clocks (`whileRunWaits`).
  const runHold = releasableHold(watchdog);
  try {
    return await retryOnContextOverflow({
      keepLast: options.keepLast,
      attempt: (window) =>
        retryTransient(run, () => withRunHold(runHold.hold, () => streamAttempt(run, window))),
      windowSent: () => run.windowSent,
      compact: (keep) =>
        options.historyWindow.compact(options.contextId, keep, "context-window-exceeded", signal),
      onRetry: () => progress.restart(),
      stopped: () => signal.aborted,
      onStopped: () => stoppedRun(run),
      logger,
    });
  } catch (error) {
    throw streamFailure(error);
  } finally {
    watchdog.dispose();
    runHold.release();
  }
}

/** Retries transient model failures of one attempt within the run's budget (`run.retry.maxMs`). */
function retryTransient(run: RunStream, attempt: () => Promise<StreamedRun>): Promise<StreamedRun> {
  const { options, watchdog, progress } = run;
  return retryModelCalls(attempt, {
    policy: { ...defaultModelRetry, ...options.modelRetry },
    signal: watchdog.signal,
    logger: options.logger,
    onRetry: () => progress.restart(),
    // A wait is no silent stream: the idle clock stops as it does while a tool runs.
    waiting: { start: () => watchdog.toolStarted(), end: () => watchdog.toolFinished() },
  });
}

/** One model loop with a window of at most `window` history messages. */
async function streamAttempt(run: RunStream, window: number): Promise<StreamedRun> {
  const { options, watchdog, progress } = run;
  const signal = watchdog.signal;
  run.windowSent = 0;
  const built = await options.historyWindow.build(options.contextId, options.systemTokens, window, signal);
  run.windowSent = built.ids.size;
  options.onWindow(built.ids);
  // The first step is timed from the call: a provider that never answers sends no start-step.
  watchdog.stepStarted();
  run.events.streamStarted();
  // Marked so the host's usage meter knows these calls are the run's steps (it counts a step cut off by an abort).
  const loop = withModelPurpose({ purpose: "step" }, () =>
    runStepLoop({
      model: options.model,
      messages: [...options.system, ...withRuntimeNote(built.messages, options.runtimeNote)],
      tools: options.tools,
      ...(options.activeTools ? { activeTools: options.activeTools } : {}),
      stopWhen: [
        stepCountIs(Math.max(1, options.maxSteps - (options.priorSteps?.() ?? 0))),
        () => options.stopAfterStep?.() === true,
      ],
      abortSignal: signal,
      prepareStep: mergeArrivals(options.takeArrivals),
      onPart: (part) => run.events.handle(part),
      // The step boundary: awaited before the next step begins; the run journal makes the
      // finished step durable here.
      onStepFinish: async (step) => {
        progress.stepFinished(step);
        await options.onStepFinished?.(step);
      },
    }),
  );
  // A stalled provider or tool may never settle the loop: the abort wins the race so the lane moves on.
  loop.catch(() => {});
  if ((await Promise.race([loop, run.stopped])) === "stopped" || signal.aborted) return stoppedRun(run);
  return {
    status: "completed",
    finalText: progress.steps.at(-1)?.text ?? "",
    steps: progress.steps,
    usage: progress.usage,
  };
}

/** What a stopped run had: its finished steps, and the unfinished step's text and tool calls. */
function stoppedRun(run: RunStream): StreamedRun {
  const error = run.watchdog.signal.reason as RunAbortedError;
  const parts = run.events.aborted(error);
  const { steps, usage } = run.progress;
  run.options.logger.warn({ reason: error.reason, steps: steps.length }, `run aborted: ${error.message}`);
  return { status: "aborted", error, parts, steps, usage };
}

/**
 * The step preparation of one loop: messages merged mid-run go into every later step's prompt, each
 * batch at the index (in the step's message list) where it joined.
 */
function mergeArrivals(
  take: (step: number) => Promise<ModelMessage[]>,
): (step: { stepNumber: number; messages: ModelMessage[] }) => Promise<ModelMessage[] | undefined> {
  const injected: Array<{ at: number; messages: ModelMessage[] }> = [];
  return async ({ messages, stepNumber }) => {
    const arrived = stepNumber > 0 ? await take(stepNumber) : [];
    if (arrived.length > 0) injected.push({ at: messages.length, messages: arrived });
    if (injected.length === 0) return undefined;
    const withInjected = [...messages];
    for (const entry of [...injected].reverse()) withInjected.splice(entry.at, 0, ...entry.messages);
    return withInjected;
  };
}
