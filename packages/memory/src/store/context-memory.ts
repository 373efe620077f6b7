import type { MemoryDocuments, MemoryScope, MemoryWriter } from "@downcity/core";
import { entryIds, type MemoryEntry, memoryTextKey } from "./memory-entry.js";
import { type MemoryMeta, parseMemoryMeta, renderMemoryMeta } from "./memory-meta.js";
import { type PrimaryDocument, parsePrimaryMarkdown, renderPrimaryMarkdown } from "./primary-markdown.js";

/** A context's memory as read from the store: the document (tombstoned entries already dropped), the meta, the raw size. */
export interface ContextMemory {
  document: PrimaryDocument;
  meta: MemoryMeta;
  chars: number;
}

/** The memory store scope of a context. */
export const contextScope = (contextId: string): MemoryScope => ({ kind: "context", contextId });

/** The memory store scope of the profile shared by every context. */
export const profileScope: MemoryScope = { kind: "profile" };

/** True when the entry (by any of its ids or its text) was forgotten. */
export function isTombstoned(
  meta: MemoryMeta,
  entry: Pick<MemoryEntry, "id" | "text" | "mergedIds">,
): boolean {
  const ids = new Set(meta.tombstones.map((tombstone) => tombstone.id));
  const keys = new Set(meta.tombstones.map((tombstone) => tombstone.textKey));
  return entryIds(entry as MemoryEntry).some((id) => ids.has(id)) || keys.has(memoryTextKey(entry.text));
}

/** Reads Primary.md and the meta through `reader`; entries forgotten after a crash mid-forget are filtered out here. */
export async function loadContextMemory(
  reader: { read(): Promise<MemoryDocuments> },
  contextId: string,
  now: () => Date,
): Promise<ContextMemory> {
  const documents = await reader.read();
  const meta = parseMemoryMeta(documents.meta, contextId);
  const parsed = parsePrimaryMarkdown(documents.primary, now);
  return {
    document: { ...parsed, entries: parsed.entries.filter((entry) => !isTombstoned(meta, entry)) },
    meta,
    chars: documents.primary.length,
  };
}

/** Writes Primary.md; returns its new size in characters. */
export async function saveContextPrimary(writer: MemoryWriter, document: PrimaryDocument): Promise<number> {
  const markdown = renderPrimaryMarkdown(document);
  await writer.writePrimary(markdown);
  return markdown.length;
}

/** Writes the meta with the entry index rebuilt from `document`. */
export async function saveContextMeta(
  writer: MemoryWriter,
  meta: MemoryMeta,
  document: PrimaryDocument,
): Promise<MemoryMeta> {
  const next: MemoryMeta = {
    ...meta,
    entries: Object.fromEntries(
      document.entries.map((entry) => [entry.id, { kind: entry.kind, sources: entry.sources }]),
    ),
  };
  await writer.writeMeta(renderMemoryMeta(next));
  return next;
}
