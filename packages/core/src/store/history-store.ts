import type { HistoryMessage } from "../history/history-message.js";

/** A context's history metadata: compaction parameters, the last archive and plug-ins' metadata. */
export interface HistoryMeta {
  compaction?: { keepLast: number; archivedCount: number; compactedAt: string; reason?: string };
  lastArchiveId?: string;
  [key: string]: unknown;
}

/** What compaction did. */
export interface CompactionResult {
  archiveId: string;
  archivedCount: number;
  keptCount: number;
  summary: string;
}

/** Options of `ContextHistory.compact`. */
export interface CompactOptions {
  /** Newest messages kept verbatim. */
  keepLast: number;
  /** Summarises the older messages (called outside any lock, so appends continue meanwhile). */
  summarize: (messages: HistoryMessage[]) => Promise<string>;
  reason?: string;
}

/**
 * The history of one context as every store driver offers it: append, read the live tail, read
 * what compaction archived, metadata, compaction into a summary.
 */
export interface ContextHistory {
  /**
   * Appends in order; every message needs `id`, `role` and `parts`. Resolves once they are durable;
   * with `sync: false` a driver may resolve once they are written (a killed process keeps them, a
   * power loss may not) and make them durable with the context's next append: for a run's trigger
   * messages, which its answer's append makes durable and a channel's inbox would replay.
   */
  append(messages: HistoryMessage | HistoryMessage[], options?: { sync?: boolean }): Promise<void>;
  /** The live messages (a summary first, once compacted), whole or the last `last`. */
  read(options?: { last?: number }): Promise<HistoryMessage[]>;
  /**
   * Optional: the user messages among the last `last` whose `metadata.messageId` is one of
   * `messageIds` (how a replayed event finds its stored copy), oldest first. A driver that can
   * filter where the messages live offers it; without it the runtime reads the tail and filters.
   */
  findUserMessages?(messageIds: readonly string[], options: { last: number }): Promise<HistoryMessage[]>;
  /**
   * Optional: appends `messages` unless a user message among the last `last` carries one of their
   * `metadata.messageId`s, and answers those stored copies, oldest first: empty when the messages
   * were appended, otherwise nothing was written. How a run's trigger messages are stored and
   * checked for a replay at once (one round trip); `sync` as for `append`. Without it the runtime
   * looks (`findUserMessages` or a tail read) and then appends.
   */
  appendUnlessStored?(
    messages: HistoryMessage[],
    options: { last: number; sync?: boolean },
  ): Promise<HistoryMessage[]>;
  /** Every message compaction moved out of the live history, oldest archive first. */
  readArchive(): Promise<HistoryMessage[]>;
  meta(): Promise<HistoryMeta>;
  /** Applies `update` to the metadata, one update at a time per context. */
  updateMeta(
    update: (meta: HistoryMeta) => HistoryMeta | undefined | Promise<HistoryMeta | undefined>,
  ): Promise<HistoryMeta>;
  /** Archives all but the newest `keepLast` messages behind one summary; undefined when nothing was older. */
  compact(options: CompactOptions): Promise<CompactionResult | undefined>;
}

/** Histories of all contexts of one agent (shared by every worker that serves it). */
export interface HistoryStore {
  /** The history of `contextId` (created on first append). */
  context(contextId: string): ContextHistory;
  close(): Promise<void>;
}
