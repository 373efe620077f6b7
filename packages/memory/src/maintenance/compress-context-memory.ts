import { DowncityError, type Logger, type MemoryStore } from "@downcity/core";
import type { LanguageModel } from "ai";
import {
  contextScope,
  isTombstoned,
  loadContextMemory,
  saveContextMeta,
  saveContextPrimary,
} from "../store/context-memory.js";
import { entryIds, type MemoryEntry, oneLine } from "../store/memory-entry.js";
import { renderPrimaryMarkdown } from "../store/primary-markdown.js";
import { compressEntries } from "./compress-entries.js";

/** What one compression did. */
export type CompressionResult =
  | { status: "skipped"; reason: "empty" | "no-model" | "not-shorter"; chars: number }
  | { status: "compressed"; before: number; after: number; backup: string; entries: number };

/** Options of `compressContextMemory`. */
export interface CompressOptions {
  store: MemoryStore;
  contextId: string;
  model: LanguageModel;
  maxPrimaryChars: number;
  logger: Logger;
  now: () => Date;
  abortSignal?: AbortSignal;
}

/** Backs Primary.md up, asks the model for a shorter version, and applies it keeping ids, provenance and tombstones. */
export async function compressContextMemory(options: CompressOptions): Promise<CompressionResult> {
  const { contextId, store, now, logger } = options;
  const scope = contextScope(contextId);
  const snapshot = await store.update(scope, async (writer) => {
    const loaded = await loadContextMemory(writer, contextId, now);
    if (loaded.document.entries.length === 0) return { loaded, backup: "" };
    // The backup is written before the model sees anything, so a bad rewrite never loses memory.
    const backup = await writer.backup((await writer.read()).primary, now());
    return { loaded, backup };
  });
  if (!snapshot.backup) return { status: "skipped", reason: "empty", chars: snapshot.loaded.chars };
  const compressed = await compressEntries({
    model: options.model,
    entries: snapshot.loaded.document.entries,
    targetChars: Math.floor(options.maxPrimaryChars * 0.6),
    ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
  });
  return store.update(scope, async (writer) => {
    const current = await loadContextMemory(writer, contextId, now);
    const before = new Map(snapshot.loaded.document.entries.map((entry) => [entry.id, entry]));
    const live = new Map(current.document.entries.map((entry) => [entry.id, entry]));
    const covered = new Set<string>();
    const rejected = new Set<string>();
    const entries: MemoryEntry[] = [];
    for (const proposal of compressed) {
      const ids = [...new Set(proposal.ids)].filter((id) => before.has(id) && !covered.has(id));
      const text = oneLine(proposal.text);
      // A merge touching an entry forgotten while the model ran is rejected; its other originals stay as they were.
      if (ids.length === 0 || !text || ids.some((id) => !live.has(id))) {
        for (const id of ids) rejected.add(id);
        continue;
      }
      const originals = ids.map((id) => live.get(id) as MemoryEntry);
      const first = originals[0] as MemoryEntry;
      const mergedIds = [
        ...new Set(originals.flatMap((entry) => entryIds(entry)).filter((id) => id !== first.id)),
      ];
      const entry: MemoryEntry =
        originals.length === 1 && first.text === text && first.kind === proposal.kind
          ? first
          : {
              id: first.id,
              kind: proposal.kind,
              text,
              sources: [...new Set(originals.flatMap((original) => original.sources))],
              createdAt: first.createdAt,
              ...(mergedIds.length ? { mergedIds } : {}),
              via: "compress",
            };
      if (entry !== first && isTombstoned(current.meta, { id: entry.id, text })) {
        for (const id of ids) rejected.add(id);
        continue;
      }
      for (const id of ids) covered.add(id);
      entries.push(entry);
    }
    if (covered.size === 0) {
      throw new DowncityError(
        "MODEL_ERROR",
        "Compression returned no entries with known ids; Primary.md was left unchanged",
      );
    }
    // Originals of rejected proposals, and entries added while the model ran, are kept as they are.
    for (const entry of current.document.entries) {
      const keep = !before.has(entry.id) || (rejected.has(entry.id) && !covered.has(entry.id));
      if (keep) entries.push(entry);
    }
    const document = { ...current.document, entries };
    const candidateChars = renderPrimaryMarkdown(document).length;
    if (candidateChars >= current.chars) {
      logger.warn(
        { contextId, before: current.chars, after: candidateChars },
        "compressed memory was not shorter; kept the original",
      );
      return { status: "skipped", reason: "not-shorter", chars: current.chars } as const;
    }
    const after = await saveContextPrimary(writer, document);
    await saveContextMeta(writer, { ...current.meta, lastCompressedAt: now().toISOString() }, document);
    logger.info({ contextId, before: current.chars, after, backup: snapshot.backup }, "memory compressed");
    return {
      status: "compressed",
      before: current.chars,
      after,
      backup: snapshot.backup,
      entries: entries.length,
    } as const;
  });
}
