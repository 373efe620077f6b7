import type {
  ContextHistory,
  HistoryMessage,
  Logger,
  MemoryDocuments,
  MemoryStore,
  MemoryWriter,
} from "@downcity/core";
import type { LanguageModel } from "ai";
import {
  type ContextMemory,
  contextScope,
  isTombstoned,
  loadContextMemory,
  saveContextMeta,
  saveContextPrimary,
} from "../store/context-memory.js";
import { entryIds, type MemoryEntry, memoryEntryId, oneLine } from "../store/memory-entry.js";
import type { MemoryMeta } from "../store/memory-meta.js";
import { type ExtractedEntry, extractEntries } from "./extract-entries.js";

/** Options of `extractContextBatch`. */
export interface ExtractBatchOptions {
  store: MemoryStore;
  contextId: string;
  model: LanguageModel;
  history: ContextHistory;
  threshold: number;
  maxBatch: number;
  logger: Logger;
  now: () => Date;
  abortSignal?: AbortSignal;
  /**
   * The context's documents as read earlier in the run (its prompt's read): they stand in for the
   * store's for the check whether extraction is due; an extraction reads the store again.
   */
  read?: MemoryDocuments;
}

/** What one batch did: messages still pending, and (when it ran) the ids added and messages memorised. */
export interface ExtractBatchResult {
  pending: number;
  added?: string[];
  memorized?: number;
}

/** Index just past the last memorised message; after compaction archived it, everything after the summary. */
export function memoryCursor(messages: HistoryMessage[], meta: MemoryMeta): number {
  if (meta.lastMemorizedMessageId) {
    const index = messages.findIndex((message) => message.id === meta.lastMemorizedMessageId);
    if (index >= 0) return index + 1;
    return messages.findLastIndex((message) => message.metadata?.kind === "summary") + 1;
  }
  return Math.min(meta.lastMemorizedEntryCount, messages.length);
}

/** Pending messages when the newest `threshold` of history alone shows fewer than `threshold`; else undefined. */
async function pendingInTail(options: ExtractBatchOptions, meta: MemoryMeta): Promise<number | undefined> {
  const { threshold } = options;
  const tail = await options.history.read({ last: threshold });
  const lastId = meta.lastMemorizedMessageId;
  const cursorInTail = lastId ? tail.findIndex((message) => message.id === lastId) : -1;
  if (tail.length >= threshold && cursorInTail < 0) return undefined;
  const waiting = tail
    .slice(tail.length < threshold ? memoryCursor(tail, meta) : cursorInTail + 1)
    .filter((message) => message.metadata?.kind !== "summary");
  return waiting.length < threshold ? waiting.length : undefined;
}

/** Extracts one batch of un-memorised history: snapshot, model call outside the lock, merge by entry id under the lock. */
export async function extractContextBatch(options: ExtractBatchOptions): Promise<ExtractBatchResult> {
  const { contextId, store, now, threshold, maxBatch } = options;
  const scope = contextScope(contextId);
  const fresh = () => loadContextMemory({ read: () => store.read(scope) }, contextId, now);
  // Cheap check first (this runs after every turn): when the cursor lies within the newest
  // `threshold` messages, or history is shorter than that, the tail alone decides. A read the
  // run's prompt made stands in for the snapshot here: the cursor only moves forward, so an older
  // one counts more pending, never fewer, and the batch below starts from a fresh read.
  const carried = options.read;
  const checked = await loadContextMemory(
    { read: () => (carried ? Promise.resolve(carried) : store.read(scope)) },
    contextId,
    now,
  );
  const waiting = await pendingInTail(options, checked.meta);
  if (waiting !== undefined) return { pending: waiting };
  // Unlocked snapshot: both documents are replaced whole, and the merge re-checks the cursor under the lock.
  const snapshot = carried ? await fresh() : checked;
  const messages = await options.history.read();
  const pending = messages
    .slice(memoryCursor(messages, snapshot.meta))
    .filter((message) => message.metadata?.kind !== "summary");
  if (pending.length < threshold) return { pending: pending.length };
  const batch = pending.slice(0, maxBatch);
  const extracted = await extractEntries({
    model: options.model,
    messages: batch,
    known: snapshot.document.entries.slice(-100).map((entry) => entry.text),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return store.update(scope, async (writer) => {
    const current = await loadContextMemory(writer, contextId, now);
    if (
      current.meta.lastMemorizedMessageId !== snapshot.meta.lastMemorizedMessageId ||
      current.meta.lastMemorizedEntryCount !== snapshot.meta.lastMemorizedEntryCount
    ) {
      options.logger.info(
        { contextId },
        "memory cursor moved during extraction (another process); result dropped",
      );
      return { pending: 0 };
    }
    const merged = await mergeExtracted(options, writer, current, { batch, extracted, messages });
    return { pending: pending.length - batch.length, ...merged };
  });
}

/** Merges extracted entries into the current document by id (tombstones win), then moves the cursor past `batch`. */
async function mergeExtracted(
  options: ExtractBatchOptions,
  writer: MemoryWriter,
  current: ContextMemory,
  work: { batch: HistoryMessage[]; extracted: ExtractedEntry[]; messages: HistoryMessage[] },
): Promise<{ added: string[]; memorized: number }> {
  const { now } = options;
  const { batch, extracted, messages } = work;
  const last = batch[batch.length - 1] as HistoryMessage;
  const batchIds = new Set(batch.map((message) => message.id));
  const entries = [...current.document.entries];
  const owner = new Map<string, number>();
  entries.forEach((entry, index) => {
    for (const id of entryIds(entry)) owner.set(id, index);
  });
  const added: string[] = [];
  let changed = false;
  for (const proposal of extracted) {
    const text = oneLine(proposal.text);
    if (!text) continue;
    const id = memoryEntryId(text);
    if (isTombstoned(current.meta, { id, text })) continue;
    const cited = [...new Set(proposal.sourceMessageIds)].filter((source) => batchIds.has(source));
    // Provenance must point at real history lines: invented ids are dropped, the slice stands in.
    const sources = cited.length > 0 ? cited : batch.map((message) => message.id);
    const existing = owner.get(id);
    if (existing !== undefined) {
      const entry = entries[existing] as MemoryEntry;
      const merged = [...new Set([...entry.sources, ...sources])];
      if (merged.length !== entry.sources.length) {
        entries[existing] = { ...entry, sources: merged };
        changed = true;
      }
      continue;
    }
    owner.set(id, entries.length);
    entries.push({
      id,
      kind: proposal.kind,
      text,
      sources,
      createdAt: now().toISOString(),
      via: "extract",
    });
    added.push(id);
    changed = true;
  }
  const document = { ...current.document, entries };
  // Primary.md first, then the cursor: a crash in between re-extracts, and ids make that a no-op.
  if (changed) await saveContextPrimary(writer, document);
  const { lastError: _cleared, ...meta } = current.meta;
  await saveContextMeta(
    writer,
    {
      ...meta,
      lastMemorizedMessageId: last.id,
      lastMemorizedEntryCount: messages.indexOf(last) + 1,
      lastRunAt: now().toISOString(),
    },
    document,
  );
  return { added, memorized: batch.length };
}
