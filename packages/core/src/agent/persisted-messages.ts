import type { HistoryMessage } from "../history/history-message.js";
import type { ContextHistory } from "../store/shared-history-store.js";

const lookBack = 200;

/**
 * The messages of `batch` not yet in history. A message replayed after a crash (the durable inbox
 * sends it again under the same `messageId`) was already appended when its first run started; it is
 * swapped for the stored copy instead of being written twice.
 */
export async function unpersistedMessages(
  store: ContextHistory,
  batch: Array<{ historyMessage: HistoryMessage }>,
): Promise<HistoryMessage[]> {
  const ids = batch.map((pending) => pending.historyMessage.metadata?.messageId).filter(Boolean);
  if (ids.length === 0) return batch.map((pending) => pending.historyMessage);
  const stored = new Map<string, HistoryMessage>();
  for (const message of await store.read({ last: lookBack })) {
    const messageId = message.metadata?.messageId;
    if (message.role === "user" && messageId) stored.set(messageId, message);
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
