import { DowncityError, writeFileAtomic } from "@downcity/core";
import {
  loadContextMemory,
  readTextFile,
  saveContextMeta,
  saveContextPrimary,
} from "../store/context-memory.js";
import type { KeyedLock } from "../store/keyed-lock.js";
import {
  entryIds,
  type MemoryEntry,
  type MemoryKind,
  memoryEntryId,
  memoryTextKey,
  oneLine,
} from "../store/memory-entry.js";
import { contextMemoryFiles, profileFiles } from "../store/memory-files.js";
import { parseMemoryLine, renderMemoryLine } from "../store/primary-markdown.js";
import { requireContextId } from "./require-context-id.js";

/** Input of `Memory.remember`. */
export interface RememberInput {
  text: string;
  scope: "context" | "profile";
  contextId?: string;
  kind?: MemoryKind;
  /** History message ids the entry is based on (provenance). */
  sources?: string[];
}

/** Adds one entry to a context's or the profile's Primary.md (idempotent by id), lifting any tombstone of it. */
export async function rememberEntry(
  options: { rootDir: string; lock: KeyedLock; now: () => Date },
  input: RememberInput,
): Promise<MemoryEntry> {
  const { rootDir, lock, now } = options;
  const text = oneLine(input.text);
  if (!text) throw new DowncityError("INVALID_INPUT", "text must not be empty", { field: "text" });
  const entry: MemoryEntry = {
    id: memoryEntryId(text),
    kind: input.kind ?? "note",
    text,
    sources: [...new Set(input.sources ?? [])],
    createdAt: now().toISOString(),
    via: "remember",
  };
  if (input.scope === "profile") {
    const files = profileFiles(rootDir);
    return lock.run(files.lock, async () => {
      const markdown = await readTextFile(files.primary);
      const lines = markdown.split(/\r?\n/);
      const existing = lines
        .map((line) => parseMemoryLine(line, now))
        .find((found) => found?.id === entry.id);
      if (existing) return existing;
      const body = markdown.trim() ? `${markdown.replace(/\s*$/, "")}\n` : "# Profile\n\n";
      await writeFileAtomic(files.primary, `${body}${renderMemoryLine(entry)}\n`);
      return entry;
    });
  }
  const contextId = requireContextId(input.contextId);
  const files = contextMemoryFiles(rootDir, contextId);
  return lock.run(files.lock, async () => {
    const current = await loadContextMemory(files, now);
    const key = memoryTextKey(text);
    // Remembering explicitly overrides an earlier forget of the same fact.
    const tombstones = current.meta.tombstones.filter(
      (tombstone) => tombstone.id !== entry.id && tombstone.textKey !== key,
    );
    const existing = current.document.entries.find((found) => entryIds(found).includes(entry.id));
    if (existing && tombstones.length === current.meta.tombstones.length) return existing;
    const document = existing
      ? current.document
      : { ...current.document, entries: [...current.document.entries, entry] };
    const meta = { ...current.meta, tombstones };
    // Tombstones are lifted in the meta first so the load filter cannot hide the new line.
    if (tombstones.length !== current.meta.tombstones.length)
      await saveContextMeta(files, meta, current.document);
    await saveContextPrimary(files, document);
    await saveContextMeta(files, meta, document);
    return existing ?? entry;
  });
}
