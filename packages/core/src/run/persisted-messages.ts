import { type HistoryMessage, messageText } from "../history/history-message.js";
import type { Logger } from "../logger/logger.js";
import type { ContextHistory } from "../store/history-store.js";

/** How far back a replayed event's stored copy is looked for. */
export const replayLookBack = 200;

/**
 * The stored user messages whose `messageId` is one of `messageIds`, among the last
 * `replayLookBack`: asked of the store when it can filter (one small answer, usually empty),
 * otherwise read from the tail.
 */
export async function storedUserMessages(
  store: ContextHistory,
  messageIds: readonly string[],
  last = replayLookBack,
): Promise<HistoryMessage[]> {
  if (messageIds.length === 0) return [];
  if (store.findUserMessages) return store.findUserMessages(messageIds, { last });
  const wanted = new Set(messageIds);
  return (await store.read({ last })).filter(
    (message) => message.role === "user" && wanted.has(message.metadata?.messageId ?? ""),
  );
}

/**
 * Appends `messages` unless a user message among the last `last` carries one of their
 * `messageId`s, and answers the stored copies found (empty: appended; otherwise nothing was
 * written): in one round trip where the store offers `appendUnlessStored`, else a look, then the append.
 */
export async function appendUnlessStored(
  store: ContextHistory,
  messages: HistoryMessage[],
  options: { last?: number; sync?: boolean } = {},
): Promise<HistoryMessage[]> {
  const last = options.last ?? replayLookBack;
  const sync = options.sync ?? true;
  if (store.appendUnlessStored) return store.appendUnlessStored(messages, { last, sync });
  const ids = messages.flatMap((message) => message.metadata?.messageId ?? []);
  const stored = await storedUserMessages(store, ids, last);
  if (stored.length === 0) await store.append(messages, { sync });
  return stored;
}

/** The stored copies of `batch`'s messages (those with a `messageId`): a replay finds its own. */
export function storedBatchMessages(
  store: ContextHistory,
  batch: ReadonlyArray<{ historyMessage: HistoryMessage }>,
): Promise<HistoryMessage[]> {
  return storedUserMessages(
    store,
    batch.flatMap((pending) => pending.historyMessage.metadata?.messageId ?? []),
  );
}

/**
 * The messages of `batch` not yet in history. A message replayed after a crash (the durable inbox
 * sends it again under the same `messageId`) was already appended when its first run started; it is
 * swapped for the stored copy instead of being written twice. `known` is the batch's stored copies
 * when the run looked them up already (its context is this worker's until it ends).
 */
export async function unpersistedMessages(
  store: ContextHistory,
  batch: Array<{ historyMessage: HistoryMessage }>,
  known?: readonly HistoryMessage[],
): Promise<HistoryMessage[]> {
  const ids = batch.flatMap((pending) => pending.historyMessage.metadata?.messageId ?? []);
  if (ids.length === 0) return batch.map((pending) => pending.historyMessage);
  const stored = new Map<string, HistoryMessage>();
  for (const message of known ?? (await storedUserMessages(store, ids))) {
    const messageId = message.metadata?.messageId;
    if (messageId) stored.set(messageId, message);
  }
  const fresh: HistoryMessage[] = [];
  for (const pending of batch) {
    const existing = pending.historyMessage.metadata?.messageId
      ? stored.get(pending.historyMessage.metadata.messageId)
      : undefined;
    if (existing) pending.historyMessage = existing;
    else fresh.push(pending.historyMessage);
  }
  return fresh;
}

/**
 * The stored answer of a run that finished before a crash kept its event from being marked done:
 * when every message of `batch` is a replay (already in history under an earlier run) and that run's
 * assistant message is stored too, its replies were recorded before it (the outbox has them), so
 * the replay must not ask the model again and store a second answer. A run resumed from its journal
 * keeps its requestId, so `replayed` (some message of the batch was already stored) makes the
 * lookup happen even when the stored messages carry this run's own requestId.
 */
export async function finishedRunAnswer(
  store: ContextHistory,
  batch: Array<{ historyMessage: HistoryMessage }>,
  requestId: string,
  logger: Logger,
  replayed: boolean,
): Promise<{ text: string; message: HistoryMessage } | undefined> {
  const earlier = new Set(batch.map((pending) => pending.historyMessage.metadata?.requestId));
  const [previous] = earlier;
  if (earlier.size !== 1 || !previous || (previous === requestId && !replayed)) return undefined;
  const recent = await store.read({ last: replayLookBack });
  // A failed run's stored steps are no answer: its event is run again.
  const message = recent.find(
    (stored) =>
      stored.role === "assistant" && stored.metadata?.requestId === previous && !stored.metadata?.failed,
  );
  if (!message) return undefined;
  logger.info({ answeredBy: previous }, "replayed event was already answered; not run again");
  return { text: messageText(message), message };
}
