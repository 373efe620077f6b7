import type { HistoryStore } from "../history/history-store.js";

/** The history of one context as every store backend offers it: append, read the tail, compact, meta. */
export type ContextHistory = Pick<HistoryStore, "append" | "read" | "meta" | "updateMeta" | "compact">;

/** Histories of all contexts of one agent, shared by every worker that serves it. */
export interface SharedHistoryStore {
  /** The history of `contextId` (created on first append). */
  context(contextId: string): ContextHistory;
  close(): Promise<void>;
}
