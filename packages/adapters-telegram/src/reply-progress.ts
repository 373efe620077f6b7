/** How far the send of one outbox message got: parts already delivered and the last message id. */
export interface ReplyProgress {
  done: number;
  messageId?: string;
}

/**
 * Remembers, per idempotency key, which parts of a multi-part reply (text chunks, files) Telegram
 * already took, so the outbox's retry after a failed part sends only the rest: a failed upload after
 * the text never sends the text twice. Kept in memory for the most recent `limit` keys; a restart
 * falls back to the outbox's own record (see the README's duplicate window).
 */
export function createReplyProgress(limit = 1000) {
  const progress = new Map<string, ReplyProgress>();
  return {
    get: (key: string): ReplyProgress => progress.get(key) ?? { done: 0 },
    set(key: string, value: ReplyProgress) {
      progress.delete(key);
      progress.set(key, value);
      // Maps iterate in insertion order: the first key is the least recently advanced.
      if (progress.size > limit) progress.delete(progress.keys().next().value as string);
    },
    finish: (key: string) => void progress.delete(key),
  };
}
