import { mkdir } from "node:fs/promises";
import { readTextFileIfExists, writeFileAtomic } from "@downcity/core";
import { entryIds, type MemoryEntry, memoryTextKey } from "./memory-entry.js";
import type { ContextMemoryFiles } from "./memory-files.js";
import { type MemoryMeta, readMemoryMeta, writeMemoryMeta } from "./memory-meta.js";
import { type PrimaryDocument, parsePrimaryMarkdown, renderPrimaryMarkdown } from "./primary-markdown.js";

/** A context's memory as read from disk: the document (tombstoned entries already dropped), the meta, the raw size. */
export interface ContextMemory {
  document: PrimaryDocument;
  meta: MemoryMeta;
  chars: number;
}

/** Reads a file, or "" when it does not exist. */
export async function readTextFile(path: string): Promise<string> {
  return (await readTextFileIfExists(path)) ?? "";
}

/** True when the entry (by any of its ids or its text) was forgotten. */
export function isTombstoned(
  meta: MemoryMeta,
  entry: Pick<MemoryEntry, "id" | "text" | "mergedIds">,
): boolean {
  const ids = new Set(meta.tombstones.map((tombstone) => tombstone.id));
  const keys = new Set(meta.tombstones.map((tombstone) => tombstone.textKey));
  return entryIds(entry as MemoryEntry).some((id) => ids.has(id)) || keys.has(memoryTextKey(entry.text));
}

/** Loads Primary.md and .meta.json; entries forgotten after a crash mid-forget are filtered out here. */
export async function loadContextMemory(files: ContextMemoryFiles, now: () => Date): Promise<ContextMemory> {
  const [markdown, meta] = await Promise.all([readTextFile(files.primary), readMemoryMeta(files.meta)]);
  const parsed = parsePrimaryMarkdown(markdown, now);
  return {
    document: { ...parsed, entries: parsed.entries.filter((entry) => !isTombstoned(meta, entry)) },
    meta,
    chars: markdown.length,
  };
}

/** Writes Primary.md durably; returns its new size in characters. */
export async function saveContextPrimary(
  files: ContextMemoryFiles,
  document: PrimaryDocument,
): Promise<number> {
  await mkdir(files.dir, { recursive: true });
  const markdown = renderPrimaryMarkdown(document);
  await writeFileAtomic(files.primary, markdown);
  return markdown.length;
}

/** Writes .meta.json durably with the entry index rebuilt from `document`. */
export async function saveContextMeta(
  files: ContextMemoryFiles,
  meta: MemoryMeta,
  document: PrimaryDocument,
): Promise<MemoryMeta> {
  await mkdir(files.dir, { recursive: true });
  const next: MemoryMeta = {
    ...meta,
    entries: Object.fromEntries(
      document.entries.map((entry) => [entry.id, { kind: entry.kind, sources: entry.sources }]),
    ),
  };
  await writeMemoryMeta(files.meta, next);
  return next;
}
