import { randomUUID } from "node:crypto";
import type { LanguageModel, ModelMessage, ToolSet } from "ai";
import type { ChannelSender } from "../chat/channel-sender.js";
import { createChatTools } from "../chat/chat-tools.js";
import { type RequestContext, runWithRequestContext } from "../context/request-context.js";
import { DowncityError } from "../errors/downcity-error.js";
import type { HistoryMessage } from "../history/history-message.js";
import { createLaneScheduler } from "../lanes/lane-scheduler.js";
import { errorFields, type Logger, silentLogger, withRequestContext } from "../logger/logger.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { RunAbortReason } from "../run/run-aborted-error.js";
import { emptyUsage, type RunUsage } from "../run/run-usage.js";
import type { RunLimits } from "../run/run-watchdog.js";
import type { SharedHistoryStore } from "../store/shared-history-store.js";
import { type ActiveRun, type CancelTarget, createActiveRuns } from "./active-runs.js";
import { buildSystemMessages } from "./build-system-messages.js";
import { finishAbortedRun } from "./finish-aborted-run.js";
import { createHistoryWindow } from "./history-window.js";
import type { IncomingMessage } from "./incoming-message.js";
import { createMessageIntake, type PendingMessage } from "./message-intake.js";
import { historyToModelMessages } from "./model-messages.js";
import { finishedRunAnswer, unpersistedMessages } from "./persisted-messages.js";
import { createReplyDelivery, lastRoute, type RecipientDirectory } from "./reply-routing.js";
import { runAgentLoop } from "./run-agent-loop.js";
import type { RuntimeEvent, RuntimeEventListener } from "./runtime-event.js";
import { createRuntimeHistories, type RuntimeHistory } from "./runtime-histories.js";
import { stepsToParts } from "./steps-to-parts.js";
import { createToolSchemaCache } from "./tool-schema-cache.js";

/** What tool factories learn about the run they build tools for. */
export interface RunContext extends RequestContext {
  rootDir: string;
  history: RuntimeHistory;
  abortSignal: AbortSignal;
  origin: "user" | "internal";
}

/** Tools for runs: a fixed set, or a factory called once per run. */
export type ToolSource = ToolSet | ((run: RunContext) => ToolSet | Promise<ToolSet>);

/** The outcome of one agent run. */
export interface RunResult {
  contextId: string;
  requestId: string;
  /** What reached the user: the `chat_send` texts, else the final text. */
  text: string;
  /** The persisted assistant UIMessage of this run. */
  message: HistoryMessage;
  steps: number;
  /** Tokens the run's model calls used. */
  usage: RunUsage;
  /** Set when a cancel, a watchdog limit or shutdown stopped the run; `text` is then the notice. */
  aborted?: { reason: RunAbortReason; message: string };
}

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
  history?: { keepLast?: number; maxInputTokens?: number };
  logger?: Logger;
  /** Where a context keeps its history; default `.downcity/context/<encoded>/messages`. */
  historyDir?: (contextId: string) => string | undefined;
  /** Histories shared by several workers (a `store` adapter); contexts a plug-in claims stay on disk. */
  sharedHistory?: SharedHistoryStore;
  /** How long `close()` lets running lanes finish before aborting them. */
  closeGraceMs?: number;
  generateId?: () => string;
  now?: () => Date;
}

/** The agent runtime: lanes, history and the tool loop for one project root. */
export interface AgentRuntime {
  readonly rootDir: string;
  send(message: IncomingMessage): Promise<RunResult>;
  history(contextId: string): RuntimeHistory;
  registerSender(channel: string, sender: ChannelSender): () => void;
  /** Sets how `chat_send`'s `to` ("@username", a contact id) finds its recipient (the channel host's contact book). */
  registerDirectory(directory: RecipientDirectory): () => void;
  addPromptProvider(provider: PromptProvider): () => void;
  addTools(source: ToolSource): () => void;
  on(listener: RuntimeEventListener): () => void;
  /** Emits a `tool-progress` event for a run (tools that wait report through it). */
  reportProgress(progress: Omit<Extract<RuntimeEvent, { type: "tool-progress" }>, "type">): void;
  stats(): { running: number; queued: number };
  /** Stops running runs; resolves with the runs it stopped once their lanes are free again. */
  cancel(target: CancelTarget): Promise<Array<{ contextId: string; requestId: string }>>;
  close(): Promise<void>;
}

type Pending = PendingMessage<RunResult>;

const removeFrom = <T>(list: T[], item: T) => {
  const index = list.indexOf(item);
  if (index >= 0) list.splice(index, 1);
};

/** Creates the agent runtime of a project: intake, lanes, history and the tool loop. */
export function createAgentRuntime(options: AgentRuntimeOptions): AgentRuntime {
  const rootDir = options.rootDir;
  const logger = withRequestContext(options.logger ?? silentLogger);
  const maxSteps = options.maxSteps ?? 30;
  const keepLast = Math.max(2, options.history?.keepLast ?? 200);
  const maxInputTokens = options.history?.maxInputTokens ?? 120000;
  const generateId = options.generateId ?? (() => randomUUID());
  const now = options.now ?? (() => new Date());
  const promptProviders = [...(options.promptProviders ?? [])];
  const toolSources: ToolSource[] = Array.isArray(options.tools)
    ? [...options.tools]
    : options.tools
      ? [options.tools]
      : [];
  const senders = new Map<string, ChannelSender>();
  let directory: RecipientDirectory | undefined;
  const listeners = new Set<RuntimeEventListener>();
  const active = createActiveRuns(logger);
  let closed = false;

  const emit = (event: RuntimeEvent) => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (error) {
        logger.warn({ event: event.type, ...errorFields(error) }, "runtime event listener threw");
      }
    }
  };

  const history = createRuntimeHistories({
    rootDir,
    logger,
    now,
    ...(options.historyDir ? { historyDir: options.historyDir } : {}),
    ...(options.sharedHistory ? { shared: options.sharedHistory } : {}),
  });

  const withCachedSchemas = createToolSchemaCache();
  const historyWindow = createHistoryWindow({
    history,
    maxInputTokens,
    logger,
    ...(options.model ? { model: options.model } : {}),
    onCompacted: (contextId, result) =>
      emit({
        type: "context-compacted",
        contextId,
        archiveId: result.archiveId,
        archivedCount: result.archivedCount,
      }),
  });

  const runLane = async (contextId: string, drain: () => Pending[]) => {
    const batch = drain();
    const first = batch[0];
    if (!first) return;
    const requestId = generateId();
    const run = active.start(requestId, contextId);
    const route = first.message.channel ? first.message : await lastRoute(history(contextId), logger);
    const requestContext: RequestContext = {
      contextId,
      requestId,
      ...(route?.channel ? { channel: route.channel } : {}),
      ...(route?.chatId ? { chatId: route.chatId } : {}),
      ...(route?.userId ? { userId: route.userId } : {}),
      ...(route?.username ? { username: route.username } : {}),
    };
    const participants: Pending[] = [...batch];
    try {
      const result = await runWithRequestContext(requestContext, () =>
        runAgent(requestContext, batch, participants, drain, run),
      );
      for (const participant of participants) participant.resolve(result);
    } catch (error) {
      const failure = DowncityError.isInstance(error)
        ? error
        : new DowncityError(
            "MODEL_ERROR",
            `The agent run failed: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          );
      logger.error({ contextId, requestId, ...errorFields(failure) }, "agent run failed");
      emit({ type: "run-error", contextId, requestId, code: failure.code, message: failure.message });
      for (const participant of participants) participant.reject(failure);
    } finally {
      run.end();
    }
  };

  const runAgent = async (
    requestContext: RequestContext,
    batch: Pending[],
    participants: Pending[],
    drain: () => Pending[],
    activeRun: ActiveRun,
  ): Promise<RunResult> => {
    const abortSignal = activeRun.signal;
    const { contextId, requestId } = requestContext;
    const store = history(contextId);
    const stamp = (pending: Pending) => {
      pending.historyMessage.metadata = { ...pending.historyMessage.metadata!, requestId };
    };
    batch.forEach(stamp);
    await store.append(await unpersistedMessages(store, batch));
    // A replay of a run that finished before a crash: its answer (and its replies) are stored already.
    const answered = await finishedRunAnswer(store, batch, requestId, logger);
    if (answered) return { contextId, requestId, ...answered, steps: 0, usage: emptyUsage() };
    emit({
      type: "run-start",
      contextId,
      requestId,
      messageIds: batch.map((pending) => pending.historyMessage.id),
    });
    logger.info({ messages: batch.length }, "run started");
    if (!options.model) {
      throw new DowncityError(
        "MODEL_NOT_CONFIGURED",
        options.modelHint ??
          'No model is configured. Set "llm" in downcity.json, e.g. { "provider": "openai", "model": "gpt-4.1-mini", "apiKey": "${OPENAI_API_KEY}" }.',
        { field: "llm" },
      );
    }
    const origin = batch.every((pending) => pending.message.origin === "internal") ? "internal" : "user";
    const runContext: RunContext = { ...requestContext, rootDir, history: store, abortSignal, origin };
    const threadId = batch[0]?.message.threadId;
    const triggerMessageId = batch[0]?.message.messageId;
    const deliver = createReplyDelivery({
      requestContext,
      senders,
      emit,
      ...(directory ? { directory } : {}),
      ...(threadId ? { threadId } : {}),
      ...(triggerMessageId ? { triggerMessageId } : {}),
    });
    const sent: string[] = [];
    let visibleIds = new Set<string>();
    const tools: ToolSet = {};
    for (const source of toolSources)
      Object.assign(tools, typeof source === "function" ? await source(runContext) : source);
    Object.assign(
      tools,
      createChatTools({
        history: store,
        visibleMessageIds: () => visibleIds,
        deliver: async (text, to) => {
          // A message to someone else is not this chat's reply; the final text still answers here.
          if (!to) sent.push(text);
          return deliver(text, "chat_send", to);
        },
      }),
    );
    const runTools = withCachedSchemas(tools);
    const system = await buildSystemMessages({
      rootDir,
      requestContext,
      promptProviders,
      toolNames: Object.keys(runTools),
      logger,
      now: now(),
    });
    const takeArrivals = async (step: number): Promise<ModelMessage[]> => {
      const arrived = drain();
      if (arrived.length === 0) return [];
      arrived.forEach(stamp);
      participants.push(...arrived);
      const messages = arrived.map((pending) => pending.historyMessage);
      await store.append(messages);
      for (const message of messages) visibleIds.add(message.id);
      emit({
        type: "message-merged",
        contextId,
        requestId,
        step,
        messageIds: messages.map((message) => message.id),
      });
      logger.info({ step, merged: arrived.length }, "merged new messages into the run");
      return historyToModelMessages(messages);
    };
    const { finalText, steps, usage, aborted } = await runAgentLoop({
      model: options.model,
      contextId,
      requestId,
      ...(options.limits ? { limits: options.limits } : {}),
      abortRun: (reason) => activeRun.abort(reason),
      emit,
      system: system.messages,
      systemTokens: system.tokens,
      tools: runTools,
      ...(system.activeTools ? { activeTools: system.activeTools } : {}),
      maxSteps,
      keepLast,
      historyWindow,
      abortSignal,
      logger,
      onWindow: (ids) => {
        visibleIds = ids;
      },
      takeArrivals,
      onTextDelta: (delta) => emit({ type: "text-delta", contextId, requestId, delta }),
    });
    if (aborted) {
      const finish = { contextId, requestId, steps, usage, aborted, store, deliver, emit, logger };
      return finishAbortedRun({ ...finish, generateId, now });
    }
    if (sent.length === 0 && finalText.trim()) await deliver(finalText, "final-text");
    const message: HistoryMessage = {
      id: generateId(),
      role: "assistant",
      parts: stepsToParts(steps),
      metadata: { createdAt: now().toISOString(), contextId, requestId },
    };
    await store.append(message);
    const text = sent.length > 0 ? sent.join("\n\n") : finalText;
    emit({ type: "run-end", contextId, requestId, text, steps: steps.length, usage });
    logger.info({ steps: steps.length, ...usage }, "run finished");
    return { contextId, requestId, text, message, steps: steps.length, usage };
  };

  const lanes = createLaneScheduler<Pending>({
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
    rootDir,
    send: (input: IncomingMessage) => accept(input),
    history,
    registerDirectory(resolve) {
      directory = resolve;
      return () => {
        if (directory === resolve) directory = undefined;
      };
    },
    registerSender(channel, sender) {
      senders.set(channel, sender);
      return () => {
        if (senders.get(channel) === sender) senders.delete(channel);
      };
    },
    addPromptProvider(provider) {
      promptProviders.push(provider);
      return () => removeFrom(promptProviders, provider);
    },
    addTools(source) {
      toolSources.push(source);
      return () => removeFrom(toolSources, source);
    },
    reportProgress: (progress) => emit({ type: "tool-progress", ...progress }),
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
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
