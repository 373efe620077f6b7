import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  streamText,
  type ToolSet,
} from "ai";
import type { z } from "zod";
import type { ChannelSender } from "../chat/channel-sender.js";
import { createChatTools } from "../chat/chat-tools.js";
import { encodeContextId, toContextId } from "../context/context-id.js";
import { type RequestContext, runWithRequestContext } from "../context/request-context.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFromZod } from "../errors/zod-issue-message.js";
import { type HistoryMessage, messageText } from "../history/history-message.js";
import { createHistoryStore, type HistoryStore } from "../history/history-store.js";
import { createLaneScheduler } from "../lanes/lane-scheduler.js";
import { errorFields, type Logger, silentLogger, withRequestContext } from "../logger/logger.js";
import { contextDir } from "../paths/downcity-paths.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import { runPromptProviders } from "../prompt/run-prompt-providers.js";
import { isContextWindowError } from "./context-window-error.js";
import { createHistoryWindow } from "./history-window.js";
import { type IncomingMessage, incomingMessageSchema } from "./incoming-message.js";
import { estimateTokens, historyToModelMessages } from "./model-messages.js";
import type { RuntimeEvent, RuntimeEventListener } from "./runtime-event.js";
import { stepsToParts } from "./steps-to-parts.js";
import { defaultSystemPrompt, readProfile, runtimeContextPrompt } from "./system-prompt.js";
import { createToolSchemaCache } from "./tool-schema-cache.js";

/** What tool factories learn about the run they build tools for. */
export interface RunContext extends RequestContext {
  rootDir: string;
  history: HistoryStore;
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
  history?: { keepLast?: number; maxInputTokens?: number };
  logger?: Logger;
  /** Where a context keeps its history; default `.downcity/context/<encoded>/messages`. */
  historyDir?: (contextId: string) => string | undefined;
  /** Called after each successful run (memory maintenance hooks in here); errors are logged. */
  onRunComplete?: (result: RunResult) => void | Promise<void>;
  /** How long `close()` lets running lanes finish before aborting them. */
  closeGraceMs?: number;
  generateId?: () => string;
  now?: () => Date;
}

/** The agent runtime: lanes, history and the tool loop for one project root. */
export interface AgentRuntime {
  readonly rootDir: string;
  send(message: IncomingMessage): Promise<RunResult>;
  history(contextId: string): HistoryStore;
  registerSender(channel: string, sender: ChannelSender): () => void;
  addPromptProvider(provider: PromptProvider): () => void;
  addTools(source: ToolSource): () => void;
  on(listener: RuntimeEventListener): () => void;
  stats(): { running: number; queued: number };
  close(): Promise<void>;
}

interface Pending {
  message: ParsedIncomingMessage;
  historyMessage: HistoryMessage;
  resolve: (result: RunResult) => void;
  reject: (error: unknown) => void;
}

type ParsedIncomingMessage = z.output<typeof incomingMessageSchema>;

const maxContextRetries = 3;
const dedupeWindow = 10000;

/** Creates the agent runtime of a project. */
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
  const listeners = new Set<RuntimeEventListener>();
  const stores = new Map<string, HistoryStore>();
  const seen = new Map<string, Promise<RunResult>>();
  const controllers = new Set<AbortController>();
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

  const history = (contextId: string): HistoryStore => {
    const id = toContextId(contextId);
    let store = stores.get(id);
    if (!store) {
      const dir = options.historyDir?.(id) ?? join(contextDir(rootDir, id), "messages");
      store = createHistoryStore({ dir, logger, now });
      stores.set(id, store);
    }
    return store;
  };

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

  const toHistoryMessage = (message: ParsedIncomingMessage, requestId?: string): HistoryMessage => ({
    id: generateId(),
    role: "user",
    parts: [{ type: "text", text: message.text }],
    metadata: {
      createdAt: now().toISOString(),
      origin: message.origin,
      contextId: message.contextId,
      ...(requestId ? { requestId } : {}),
      ...(message.messageId ? { messageId: message.messageId } : {}),
      ...(message.channel ? { channel: message.channel } : {}),
      ...(message.chatId ? { chatId: message.chatId } : {}),
      ...(message.userId ? { userId: message.userId } : {}),
      ...(message.username ? { username: message.username } : {}),
    },
  });

  // Messages the runtime enqueues itself (a finished job, a task result) carry no route; reply
  // where the conversation last came from so the answer reaches the right chat.
  const lastRouting = async (
    contextId: string,
    fallback: ParsedIncomingMessage,
  ): Promise<ParsedIncomingMessage> => {
    try {
      const recent = await history(contextId).read({ last: 50 });
      const routed = recent.reverse().find((message) => message.role === "user" && message.metadata?.channel);
      const metadata = routed?.metadata;
      if (!metadata?.channel) return fallback;
      return {
        ...fallback,
        channel: metadata.channel,
        ...(metadata.chatId ? { chatId: metadata.chatId } : {}),
        ...(metadata.userId ? { userId: metadata.userId } : {}),
        ...(metadata.username ? { username: metadata.username } : {}),
      };
    } catch (error) {
      logger.warn(errorFields(error), "could not read the last route of this context");
      return fallback;
    }
  };

  const runLane = async (contextId: string, drain: () => Pending[]) => {
    const batch = drain();
    if (batch.length === 0) return;
    const first = batch[0] as Pending;
    const requestId = generateId();
    const controller = new AbortController();
    controllers.add(controller);
    const routing = first.message.channel ? first.message : await lastRouting(contextId, first.message);
    const requestContext: RequestContext = {
      contextId,
      requestId,
      ...(routing.channel ? { channel: routing.channel } : {}),
      ...(routing.chatId ? { chatId: routing.chatId } : {}),
      ...(routing.userId ? { userId: routing.userId } : {}),
      ...(routing.username ? { username: routing.username } : {}),
    };
    const participants: Pending[] = [...batch];
    try {
      const result = await runWithRequestContext(requestContext, () =>
        runAgent(contextId, requestId, requestContext, batch, participants, drain, controller.signal),
      );
      for (const participant of participants) participant.resolve(result);
      if (options.onRunComplete) {
        Promise.resolve()
          .then(() => options.onRunComplete?.(result))
          .catch((error) => logger.error({ contextId, ...errorFields(error) }, "onRunComplete failed"));
      }
    } catch (error) {
      const failure = DowncityError.isInstance(error)
        ? error
        : new DowncityError(
            "MODEL_ERROR",
            `The agent run failed: ${error instanceof Error ? error.message : String(error)}`,
            {
              cause: error,
            },
          );
      logger.error({ contextId, requestId, ...errorFields(failure) }, "agent run failed");
      emit({ type: "run-error", contextId, requestId, code: failure.code, message: failure.message });
      for (const participant of participants) participant.reject(failure);
    } finally {
      controllers.delete(controller);
    }
  };

  const runAgent = async (
    contextId: string,
    requestId: string,
    requestContext: RequestContext,
    batch: Pending[],
    participants: Pending[],
    drain: () => Pending[],
    abortSignal: AbortSignal,
  ): Promise<RunResult> => {
    const store = history(contextId);
    for (const pending of batch)
      pending.historyMessage.metadata = { ...pending.historyMessage.metadata!, requestId };
    await store.append(batch.map((pending) => pending.historyMessage));
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
    const sent: string[] = [];
    let visibleIds = new Set<string>();
    const deliver = async (text: string, via: "chat_send" | "final-text") => {
      const channel = requestContext.channel;
      const sender = channel ? senders.get(channel) : undefined;
      if (sender && channel) {
        await sender({
          contextId,
          requestId,
          channel,
          text,
          ...(requestContext.chatId ? { chatId: requestContext.chatId } : {}),
          ...(requestContext.userId ? { userId: requestContext.userId } : {}),
          ...(requestContext.username ? { username: requestContext.username } : {}),
          ...(first(batch).message.threadId ? { threadId: first(batch).message.threadId } : {}),
        });
      }
      emit({
        type: "chat-message",
        contextId,
        requestId,
        text,
        via,
        ...(channel ? { channel } : {}),
        ...(requestContext.chatId ? { chatId: requestContext.chatId } : {}),
      });
    };
    const tools: ToolSet = {};
    for (const source of toolSources)
      Object.assign(tools, typeof source === "function" ? await source(runContext) : source);
    Object.assign(
      tools,
      createChatTools({
        history: store,
        visibleMessageIds: () => visibleIds,
        deliver: async (text) => {
          sent.push(text);
          await deliver(text, "chat_send");
        },
      }),
    );
    const runTools = withCachedSchemas(tools);
    const toolNames = Object.keys(runTools);
    const provided = await runPromptProviders(
      [...promptProviders],
      { ...requestContext, rootDir, toolNames },
      logger,
    );
    const activeTools = provided.activeTools
      ? toolNames.filter((name) => provided.activeTools?.includes(name))
      : undefined;
    const profile = await readProfile(rootDir);
    const system: ModelMessage[] = [
      { role: "system", content: runtimeContextPrompt({ ...requestContext, rootDir, now: now() }) },
      ...(profile ? [{ role: "system" as const, content: profile }] : []),
      { role: "system", content: defaultSystemPrompt },
      ...provided.messages,
    ];
    const systemTokens = estimateTokens(system);

    let window = keepLast;
    for (let attempt = 0; ; attempt++) {
      const built = await historyWindow.build(contextId, systemTokens, window, abortSignal);
      visibleIds = built.ids;
      const initial = [...system, ...built.messages];
      // Messages merged mid-run, with the index (in the step's message list) where each batch belongs.
      const injected: Array<{ at: number; messages: ModelMessage[] }> = [];
      const steps: Array<StepResult<ToolSet>> = [];
      let finalText = "";
      try {
        const result = streamText({
          model: options.model,
          messages: initial,
          allowSystemInMessages: true,
          tools: runTools,
          ...(activeTools ? { activeTools } : {}),
          stopWhen: stepCountIs(maxSteps),
          abortSignal,
          prepareStep: async ({ messages, stepNumber }) => {
            const arrived = stepNumber > 0 ? drain() : [];
            if (arrived.length > 0) {
              for (const pending of arrived) {
                pending.historyMessage.metadata = { ...pending.historyMessage.metadata!, requestId };
                participants.push(pending);
              }
              await store.append(arrived.map((pending) => pending.historyMessage));
              for (const pending of arrived) visibleIds.add(pending.historyMessage.id);
              injected.push({
                at: messages.length,
                messages: await historyToModelMessages(arrived.map((pending) => pending.historyMessage)),
              });
              emit({
                type: "message-merged",
                contextId,
                requestId,
                step: stepNumber,
                messageIds: arrived.map((pending) => pending.historyMessage.id),
              });
              logger.info({ step: stepNumber, merged: arrived.length }, "merged new messages into the run");
            }
            if (injected.length === 0) return undefined;
            const withInjected = [...messages];
            for (const entry of [...injected].reverse()) withInjected.splice(entry.at, 0, ...entry.messages);
            return { messages: withInjected };
          },
          onStepFinish: (step) => {
            steps.push(step as StepResult<ToolSet>);
          },
        });
        for await (const part of result.fullStream) {
          if (part.type === "text-delta")
            emit({ type: "text-delta", contextId, requestId, delta: part.text });
          else if (part.type === "error") throw part.error;
          else if (part.type === "abort")
            throw new DowncityError("RUN_ABORTED", "The run was aborted (runtime closing)");
        }
        finalText = await result.text;
      } catch (error) {
        if (isContextWindowError(error) && attempt < maxContextRetries) {
          logger.warn({ attempt: attempt + 1 }, "context window exceeded; compacting and retrying");
          window = Math.max(2, Math.floor(Math.min(window, built.ids.size) / 2));
          try {
            await historyWindow.compact(
              contextId,
              Math.max(1, window - 1),
              "context-window-exceeded",
              abortSignal,
            );
          } catch (compactError) {
            logger.warn(errorFields(compactError), "compaction failed; retrying with a smaller window");
          }
          continue;
        }
        if (isContextWindowError(error)) {
          throw new DowncityError(
            "CONTEXT_WINDOW_EXCEEDED",
            `The model's context window was exceeded ${maxContextRetries + 1} times even after compaction. Lower context.history.keepLast in downcity.json or use a model with a larger window.`,
            { cause: error, field: "context.history.keepLast" },
          );
        }
        if (DowncityError.isInstance(error)) throw error;
        if (abortSignal.aborted)
          throw new DowncityError("RUN_ABORTED", "The run was aborted (runtime closing)", { cause: error });
        throw new DowncityError(
          "MODEL_ERROR",
          `The model call failed: ${(error as Error)?.message ?? String(error)}`,
          {
            cause: error,
          },
        );
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
      emit({ type: "run-end", contextId, requestId, text, steps: steps.length });
      logger.info({ steps: steps.length }, "run finished");
      return { contextId, requestId, text, message, steps: steps.length };
    }
  };

  const lanes = createLaneScheduler<Pending>({
    maxConcurrency: Math.max(1, options.maxConcurrency ?? 4),
    run: runLane,
    onRunnerError: (laneId, error) =>
      logger.error({ contextId: laneId, ...errorFields(error) }, "lane runner crashed"),
  });

  return {
    rootDir,
    send(input) {
      if (closed) {
        return Promise.reject(
          new DowncityError("RUNTIME_CLOSED", "The runtime is shutting down; the message was not accepted"),
        );
      }
      const parsed = incomingMessageSchema.safeParse(input);
      if (!parsed.success) return Promise.reject(errorFromZod(parsed.error, { what: "message" }));
      const message = parsed.data;
      try {
        // Validates the id and that its history folder name fits the filesystem.
        encodeContextId(message.contextId);
      } catch (error) {
        return Promise.reject(error);
      }
      const dedupeKey = message.messageId ? `${message.contextId}\u0000${message.messageId}` : undefined;
      if (dedupeKey) {
        const existing = seen.get(dedupeKey);
        if (existing) {
          logger.info(
            { contextId: message.contextId, messageId: message.messageId },
            "duplicate message dropped",
          );
          return existing;
        }
      }
      const promise = new Promise<RunResult>((resolve, reject) => {
        lanes.enqueue(message.contextId, {
          message,
          historyMessage: toHistoryMessage(message),
          resolve,
          reject,
        });
      });
      emit({
        type: "message-queued",
        contextId: message.contextId,
        origin: message.origin,
        ...(message.messageId ? { messageId: message.messageId } : {}),
      });
      if (dedupeKey) {
        seen.set(dedupeKey, promise);
        if (seen.size > dedupeWindow) seen.delete(seen.keys().next().value as string);
      }
      return promise;
    },
    history,
    registerSender(channel, sender) {
      senders.set(channel, sender);
      return () => {
        if (senders.get(channel) === sender) senders.delete(channel);
      };
    },
    addPromptProvider(provider) {
      promptProviders.push(provider);
      return () => {
        const index = promptProviders.indexOf(provider);
        if (index >= 0) promptProviders.splice(index, 1);
      };
    },
    addTools(source) {
      toolSources.push(source);
      return () => {
        const index = toolSources.indexOf(source);
        if (index >= 0) toolSources.splice(index, 1);
      };
    },
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stats: () => ({ running: lanes.running(), queued: lanes.queued() }),
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
            for (const controller of controllers)
              controller.abort(new DowncityError("RUN_ABORTED", "runtime closed"));
            resolve();
          }, grace);
        }),
      ]);
      if (timer) clearTimeout(timer);
      await lanes.idle();
    },
  };
}

function first(batch: Pending[]): Pending {
  return batch[0] as Pending;
}
