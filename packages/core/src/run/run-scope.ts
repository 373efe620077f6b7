import type { LanguageModel, ToolSet } from "ai";
import type { ChannelSender } from "../chat/channel-sender.js";
import type { RequestContext } from "../context/request-context.js";
import type { HistoryMessage } from "../history/history-message.js";
import type { Logger } from "../logger/logger.js";
import type { ChannelRendering } from "../prompt/channel-rendering.js";
import type { HistoryWindow } from "../prompt/history-window.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { ModelMediaOptions } from "../prompt/user-model-content.js";
import type { RunJournal } from "../store/run-journal.js";
import type { ActiveRun, ActiveRuns } from "./active-runs.js";
import type { ToolApprover } from "./approval-gated-tools.js";
import type { JournalHashes } from "./journal-hashes.js";
import type { ModelRetryPolicy } from "./model-retry.js";
import type { Redactor } from "./redact-secrets.js";
import type { ReplyKeys } from "./reply-keys.js";
import type { DeliverReply, RecipientDirectory, ReplyRoute } from "./reply-routing.js";
import type { RunContext, RuntimeHistory, ToolSource } from "./run-context.js";
import type { RunRecorder } from "./run-recorder.js";
import type { RunResult } from "./run-result.js";
import type { RunLimits } from "./run-watchdog.js";
import type { RuntimeEvent } from "./runtime-event.js";

/** A message waiting in its lane for the run that answers it: where it came from, its history form, its sender's promise. */
export interface PendingRun {
  message: ReplyRoute & { messageId?: string; origin: "user" | "internal" };
  historyMessage: HistoryMessage;
  /** Aborted when the message's inbox claim went to another worker: the run stops at its next step boundary. */
  handover?: AbortSignal;
  resolve(result: RunResult): void;
  reject(error: unknown): void;
}

/** What the runtime lends every run: its settings and its registry (tools, prompts, senders). */
export interface RunDeps {
  rootDir: string;
  /** When absent every run fails with MODEL_NOT_CONFIGURED naming `modelHint`. */
  model?: LanguageModel;
  modelHint?: string;
  maxSteps: number;
  /** Newest history messages sent verbatim (halved on each context-window overflow). */
  keepLast: number;
  limits?: Partial<RunLimits>;
  /** How long transient model failures are retried (`run.retry` in downcity.json). */
  modelRetry?: Partial<ModelRetryPolicy>;
  logger: Logger;
  generateId: () => string;
  now: () => Date;
  emit: (event: RuntimeEvent) => void;
  history: (contextId: string) => RuntimeHistory;
  /** Opens the span in which a run's start shares one read of its context's history meta; the result closes it. */
  shareMeta?: (contextId: string) => () => void;
  historyWindow: HistoryWindow;
  /** Read when a run starts: sources and providers added later join the next run. */
  toolSources: readonly ToolSource[];
  promptProviders: readonly PromptProvider[];
  senders: ReadonlyMap<string, ChannelSender>;
  /** How each channel renders replies (the runtime note tells the model). */
  renderings?: ReadonlyMap<string, ChannelRendering>;
  directory: () => RecipientDirectory | undefined;
  /** Decides calls of tools that declare `needsApproval` (absent: such calls are refused). */
  toolApprover?: () => ToolApprover | undefined;
  withCachedSchemas: (tools: ToolSet) => ToolSet;
  activeRuns: ActiveRuns;
  /** Where runs are journaled; absent, runs are not journaled. */
  journal?: RunJournal;
  /** Masks configured secrets in what the journal writes. */
  redact?: Redactor;
  /** The journal's hashes of system messages and tool schemas, kept across runs. */
  journalHashes?: JournalHashes;
  /** This worker's name in the journal (several workers may share one store). */
  workerId?: string;
  /** How stored files reach the model (a message that joins a run mid-way included). */
  media?: ModelMediaOptions;
  /** Reads PROFILE.md for each run (kept in memory while the file is unchanged). */
  readProfile?: () => Promise<string | undefined>;
}

/** One run as every stage of the pipeline sees it. */
export interface RunScope {
  requestContext: RequestContext;
  contextId: string;
  requestId: string;
  history: RuntimeHistory;
  /** Cancel, limits and shutdown reach the run through it. */
  activeRun: ActiveRun;
  deliver: DeliverReply;
  /** The outbox keys of the run's replies (`deliver` takes each reply's key from it). */
  replyKeys: ReplyKeys;
  /** Texts `chat_send` delivered to the run's own chat: when there are any, they are its answer. */
  sent: string[];
  /** The run's journal writer, when the runtime journals runs. */
  recorder?: RunRecorder;
}

/** The run as its tool factories see it. */
export function runContextOf(deps: RunDeps, scope: RunScope, batch: readonly PendingRun[]): RunContext {
  const origin = batch.every((pending) => pending.message.origin === "internal") ? "internal" : "user";
  return {
    ...scope.requestContext,
    rootDir: deps.rootDir,
    history: scope.history,
    abortSignal: scope.activeRun.signal,
    origin,
  };
}
