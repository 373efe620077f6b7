import type { LanguageModel } from "ai";
import type { RequestContext } from "../context/request-context.js";
import { DowncityError } from "../errors/downcity-error.js";
import type { HistoryMessage } from "../history/history-message.js";
import type { ActiveRun } from "./active-runs.js";
import { finishedRunAnswer, unpersistedMessages } from "./persisted-messages.js";
import { createReplyKeys } from "./reply-keys.js";
import { createReplyDelivery, lastRoute } from "./reply-routing.js";
import type { RunResult } from "./run-result.js";
import type { PendingRun, RunDeps, RunScope } from "./run-scope.js";
import { emptyUsage } from "./run-usage.js";

const noModelHint =
  'No model is configured. Set "llm" in downcity.json, e.g. { "provider": "openai", "model": "gpt-4.1-mini", "apiKey": "${OPENAI_API_KEY}" }.';

/**
 * Opens the scope of a run: its ids, and the route of its first message (a message the runtime
 * enqueued itself carries none, so its replies go where the conversation last came from).
 */
export async function openRunScope(
  deps: RunDeps,
  ids: { contextId: string; requestId: string },
  first: PendingRun,
  activeRun: ActiveRun,
): Promise<RunScope> {
  const { contextId, requestId } = ids;
  const history = deps.history(contextId);
  const route = first.message.channel ? first.message : await lastRoute(history, deps.logger);
  const requestContext: RequestContext = {
    contextId,
    requestId,
    ...(route?.channel ? { channel: route.channel } : {}),
    ...(route?.chatId ? { chatId: route.chatId } : {}),
    ...(route?.userId ? { userId: route.userId } : {}),
    ...(route?.username ? { username: route.username } : {}),
  };
  const { messageId: triggerMessageId } = first.message;
  // An internal message (a shell follow-up, a notice) answers in the thread its context lives in.
  const threadId = first.message.threadId ?? route?.threadId;
  const directory = deps.directory();
  // A resumed run continues them from its journal (see `beginRunJournal`).
  const replyKeys = createReplyKeys(triggerMessageId ?? requestId);
  const deliver = createReplyDelivery({
    requestContext,
    keys: replyKeys,
    senders: deps.senders,
    emit: deps.emit,
    ...(directory ? { directory } : {}),
    ...(threadId ? { threadId } : {}),
    ...(triggerMessageId ? { triggerMessageId } : {}),
  });
  return { requestContext, contextId, requestId, history, activeRun, deliver, replyKeys, sent: [] };
}

/** Marks a message as answered by this run (a replay after a crash finds its answer by it). */
export function stampRequest(pending: PendingRun, requestId: string): void {
  pending.historyMessage.metadata = { ...pending.historyMessage.metadata!, requestId };
}

/** What the pipeline learnt of a batch before its start: its stored copies, or that it appended the batch already. */
export interface KnownBatch {
  stored?: readonly HistoryMessage[];
  /** The batch is in history under this run's id (none of it was stored before). */
  appended?: boolean;
}

/**
 * Starts a run: stamps and persists its messages (unless `known.appended`; `known.stored`: their
 * stored copies, when looked up already), then announces `run-start` and returns the model
 * (a run without one fails here). A replay of a run that finished before a crash is answered from
 * history instead: its answer and its replies are stored already.
 */
export async function startRun(
  deps: RunDeps,
  scope: RunScope,
  batch: PendingRun[],
  known: KnownBatch = {},
): Promise<{ answered: RunResult } | { model: LanguageModel }> {
  const { contextId, requestId, history } = scope;
  for (const pending of batch) stampRequest(pending, requestId);
  let replayed = false;
  if (!known.appended) {
    const fresh = await unpersistedMessages(history, batch, known.stored);
    // Made durable by the answer's append (see ContextHistory.append): one fdatasync a turn, not two.
    if (fresh.length > 0) await history.append(fresh, { sync: false });
    replayed = fresh.length < batch.length;
  }
  const answered = await finishedRunAnswer(history, batch, requestId, deps.logger, replayed);
  if (answered) return { answered: { contextId, requestId, ...answered, steps: 0, usage: emptyUsage() } };
  deps.emit({
    type: "run-start",
    contextId,
    requestId,
    messageIds: batch.map((pending) => pending.historyMessage.id),
    replyKeyName: batch[0]?.message.messageId ?? requestId,
  });
  deps.logger.info({ messages: batch.length }, "run started");
  if (!deps.model) {
    throw new DowncityError("MODEL_NOT_CONFIGURED", deps.modelHint ?? noModelHint, { field: "llm" });
  }
  return { model: deps.model };
}
