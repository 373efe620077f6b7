import type { LanguageModel, ToolSet } from "ai";
import type { ActiveRun, ActiveRuns } from "../agent/active-runs.js";
import type { HistoryWindow } from "../agent/history-window.js";
import type { PendingMessage } from "../agent/message-intake.js";
import type { RuntimeEvent } from "../agent/runtime-event.js";
import type { RuntimeHistory } from "../agent/runtime-histories.js";
import type { ChannelSender } from "../chat/channel-sender.js";
import type { RequestContext } from "../context/request-context.js";
import type { Logger } from "../logger/logger.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { DeliverReply, RecipientDirectory } from "./reply-routing.js";
import type { RunContext, ToolSource } from "./run-context.js";
import type { RunResult } from "./run-result.js";
import type { RunLimits } from "./run-watchdog.js";

/** A message waiting in its lane for the run that answers it. */
export type PendingRun = PendingMessage<RunResult>;

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
  logger: Logger;
  generateId: () => string;
  now: () => Date;
  emit: (event: RuntimeEvent) => void;
  history: (contextId: string) => RuntimeHistory;
  historyWindow: HistoryWindow;
  /** Read when a run starts: sources and providers added later join the next run. */
  toolSources: readonly ToolSource[];
  promptProviders: readonly PromptProvider[];
  senders: ReadonlyMap<string, ChannelSender>;
  directory: () => RecipientDirectory | undefined;
  withCachedSchemas: (tools: ToolSet) => ToolSet;
  activeRuns: ActiveRuns;
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
  /** Texts `chat_send` delivered to the run's own chat: when there are any, they are its answer. */
  sent: string[];
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
