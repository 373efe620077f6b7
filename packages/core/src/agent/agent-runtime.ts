import { randomUUID } from "node:crypto";
import type { LanguageModel } from "ai";
import { DowncityError } from "../errors/downcity-error.js";
import { createLaneScheduler } from "../lanes/lane-scheduler.js";
import { errorFields, type Logger, silentLogger, withRequestContext } from "../logger/logger.js";
import { createAudioTranscriber, type TranscriptionModelObject } from "../media/audio-transcriber.js";
import { createHistoryWindow } from "../prompt/history-window.js";
import { createProfileReader } from "../prompt/profile-reader.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { ModelMediaOptions } from "../prompt/user-model-content.js";
import { type ActiveRuns, type CancelTarget, createActiveRuns } from "../run/active-runs.js";
import { createJournalHashes } from "../run/journal-hashes.js";
import type { ModelRetryPolicy } from "../run/model-retry.js";
import { createRedactor } from "../run/redact-secrets.js";
import type { RuntimeHistory, ToolSource } from "../run/run-context.js";
import { createRunPipeline } from "../run/run-pipeline.js";
import type { RunResult } from "../run/run-result.js";
import type { PendingRun } from "../run/run-scope.js";
import type { RunLimits } from "../run/run-watchdog.js";
import type { RuntimeEvent } from "../run/runtime-event.js";
import { createToolSchemaCache } from "../run/tool-schema-cache.js";
import type { HistoryStore } from "../store/history-store.js";
import type { RunJournal } from "../store/run-journal.js";
import type { IncomingMessage, SendOptions } from "./incoming-message.js";
import { createMessageIntake } from "./message-intake.js";
import { createRuntimeHistories, type RuntimeHistories } from "./runtime-histories.js";
import { createRuntimeRegistry, type RuntimeRegistrations } from "./runtime-registry.js";

// The run's types live with the run pipeline; they are re-exported where the runtime's users import them.
export type { RunContext, ToolSource } from "../run/run-context.js";
export type { RunResult } from "../run/run-result.js";

/** Options of `createAgentRuntime`. */
export interface AgentRuntimeOptions {
  rootDir: string;
  /** Any AI SDK model; when absent every run fails with MODEL_NOT_CONFIGURED naming `modelHint`. */
  model?: LanguageModel;
  /** Explains which setting provides the model (shown when none is configured). */
  modelHint?: string;
  tools?: ToolSource | ToolSource[];
  promptProviders?: PromptProvider[];
  maxConcurrency?: number;
  maxSteps?: number;
  /** Step, run and stream-idle time limits (`run` in downcity.json) [10 min, 60 min, 120 s]. */
  limits?: Partial<RunLimits>;
  /** How long transient model failures (429, 5xx, timeouts) are retried (`run.retry`) [10 min]. */
  modelRetry?: Partial<ModelRetryPolicy>;
  history?: { keepLast?: number; maxInputTokens?: number };
  logger?: Logger;
  /** Where a context keeps its history; default `.downcity/context/<encoded>/messages`. */
  historyDir?: (contextId: string) => string | undefined;
  /** Histories shared by several workers (a `store` adapter); contexts a plug-in claims stay on disk. */
  sharedHistory?: HistoryStore;
  /** How long `close()` lets running lanes finish before aborting them. */
  closeGraceMs?: number;
  generateId?: () => string;
  now?: () => Date;
  /** Where every run is journaled (`.downcity/runs/` or the shared store's tables); absent, runs are not journaled. */
  journal?: RunJournal;
  /** Values of configured keys and tokens, masked in everything the journal writes. */
  secrets?: readonly string[];
  /** This worker's name in the run journal. */
  workerId?: string;
  /** The model takes images (`llm.vision`) [true]; false turns image attachments into notes with their path. */
  vision?: boolean;
  /**
   * Transcribes voice notes and audio files before the model sees them (`llm.transcription`); the
   * transcript is kept beside the file. Absent, they are notes with their path and duration.
   */
  transcription?: TranscriptionModelObject;
}

/** The agent runtime of one project root: what is registered with it, its lanes, and the runs they feed. */
export interface AgentRuntime extends RuntimeRegistrations {
  readonly rootDir: string;
  /** Queues a message in its context's lane; resolves with the run that answered it. */
  send(message: IncomingMessage, options?: SendOptions): Promise<RunResult>;
  history(contextId: string): RuntimeHistory;
  stats(): { running: number; queued: number };
  /**
   * Stops running runs, and a run that is starting (its batch left the queue, it has no request id
   * yet) as it registers; resolves with the runs it stopped once their lanes are free again.
   * Messages still queued are not touched, and a cancel leaves nothing behind for later runs.
   */
  cancel(target: CancelTarget): Promise<Array<{ contextId: string; requestId: string }>>;
  close(): Promise<void>;
}

/** How a run shows media to the model: images when the model has vision, audio through the transcriber. */
function runtimeMedia(options: AgentRuntimeOptions): ModelMediaOptions {
  return {
    rootDir: options.rootDir,
    vision: options.vision ?? true,
    ...(options.transcription ? { transcribe: createAudioTranscriber(options.transcription) } : {}),
  };
}

/** The window of history each run's prompt is built from; a compaction is announced as an event. */
function runtimeHistoryWindow(
  options: AgentRuntimeOptions,
  parts: {
    history: Parameters<typeof createHistoryWindow>[0]["history"];
    media: Parameters<typeof createHistoryWindow>[0]["media"];
    logger: Logger;
    emit: (event: RuntimeEvent) => void;
  },
) {
  const { emit } = parts;
  return createHistoryWindow({
    ...parts,
    maxInputTokens: options.history?.maxInputTokens ?? 120000,
    ...(options.model ? { model: options.model } : {}),
    onCompacted: (contextId, result) =>
      emit({
        type: "context-compacted",
        contextId,
        archiveId: result.archiveId,
        archivedCount: result.archivedCount,
      }),
  });
}

/**
 * The runtime's active runs, each keeping its context's history tail from its start to its end
 * (see `keepableTail`): the run's readers (the window, `run-end` listeners) share one tail read.
 */
function keepingTails(active: ActiveRuns, histories: RuntimeHistories): ActiveRuns {
  return {
    ...active,
    starting(contextId) {
      const starting = active.starting(contextId);
      return {
        register(requestId) {
          const run = starting.register(requestId);
          const release = histories.keepTail(contextId);
          return {
            signal: run.signal,
            abort: (reason) => run.abort(reason),
            end() {
              release();
              run.end();
            },
          };
        },
        abandon: () => starting.abandon(),
      };
    },
  };
}

/** Creates the agent runtime of a project: its registry, its lanes, and the run pipeline they feed. */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const rootDir = options.rootDir;
  // Without a logger nothing is written: no request fields to add to every line.
  const logger = options.logger ? withRequestContext(options.logger) : silentLogger;
  const generateId = options.generateId ?? (() => randomUUID());
  const now = options.now ?? (() => new Date());
  const registry = createRuntimeRegistry({
    logger,
    tools: options.tools,
    promptProviders: options.promptProviders,
  });
  const emit = registry.emit;
  const active = createActiveRuns(logger);
  let closed = false;

  const history = createRuntimeHistories({
    rootDir,
    logger,
    now,
    ...(options.historyDir ? { historyDir: options.historyDir } : {}),
    ...(options.sharedHistory ? { shared: options.sharedHistory } : {}),
  });

  const media = runtimeMedia(options);
  const historyWindow = runtimeHistoryWindow(options, { history, media, logger, emit });

  const runLane = createRunPipeline({
    rootDir,
    media,
    ...(options.model ? { model: options.model } : {}),
    ...(options.modelHint ? { modelHint: options.modelHint } : {}),
    maxSteps: options.maxSteps ?? 30,
    keepLast: Math.max(2, options.history?.keepLast ?? 200),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.modelRetry ? { modelRetry: options.modelRetry } : {}),
    logger,
    generateId,
    now,
    emit,
    history,
    shareMeta: history.shareMeta,
    historyWindow,
    toolSources: registry.toolSources,
    promptProviders: registry.promptProviders,
    senders: registry.senders,
    renderings: registry.renderings,
    directory: registry.directory,
    toolApprover: registry.toolApprover,
    withCachedSchemas: createToolSchemaCache(),
    readProfile: createProfileReader(rootDir),
    activeRuns: keepingTails(active, history),
    ...(options.journal
      ? {
          journal: options.journal,
          redact: createRedactor(options.secrets ?? []),
          journalHashes: createJournalHashes(),
        }
      : {}),
    ...(options.workerId ? { workerId: options.workerId } : {}),
  });

  const lanes = createLaneScheduler<PendingRun>({
    maxConcurrency: Math.max(1, options.maxConcurrency ?? 4),
    run: runLane,
    onRunnerError: (laneId, error) =>
      logger.error({ contextId: laneId, ...errorFields(error) }, "lane runner crashed"),
  });

  const accept = createMessageIntake<RunResult>({
    generateId,
    now,
    logger,
    emit,
    enqueue: (contextId, pending) => lanes.enqueue(contextId, pending),
    closed: () => closed,
  });

  return {
    ...registry.registrations,
    rootDir,
    send: (input: IncomingMessage, sendOptions?: SendOptions) => accept(input, sendOptions),
    history,
    stats: () => ({ running: lanes.running(), queued: lanes.queued() }),
    cancel: (target: CancelTarget) => active.cancel(target),
    async close() {
      if (closed) return lanes.idle();
      closed = true;
      for (const pending of lanes.drainAll()) {
        pending.reject(
          new DowncityError("RUNTIME_CLOSED", "The runtime shut down before this message was handled"),
        );
      }
      const grace = options.closeGraceMs ?? 10000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        lanes.idle(),
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            active.abortAll();
            resolve();
          }, grace);
        }),
      ]);
      if (timer) clearTimeout(timer);
      await lanes.idle();
    },
  };
}
