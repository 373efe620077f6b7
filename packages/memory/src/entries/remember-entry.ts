import { DowncityError, type MemoryStore } from "@downcity/core";
import {
  contextScope,
  loadContextMemory,
  profileScope,
  saveContextMeta,
  saveContextPrimary,
} from "../store/context-memory.js";
import {
  entryIds,
  type MemoryEntry,
  type MemoryKind,
  memoryEntryId,
  memoryTextKey,
  oneLine,
} from "../store/memory-entry.js";
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
  options: { store: MemoryStore; now: () => Date },
  input: RememberInput,
): Promise<MemoryEntry> {
  const { store, now } = options;
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
    return store.update(profileScope, async (writer) => {
      const markdown = (await writer.read()).primary;
      const lines = markdown.split(/\r?\n/);
      const existing = lines
        .map((line) => parseMemoryLine(line, now))
        .find((found) => found?.id === entry.id);
      if (existing) return existing;
      const body = markdown.trim() ? `${markdown.replace(/\s*$/, "")}\n` : "# Profile\n\n";
      await writer.writePrimary(`${body}${renderMemoryLine(entry)}\n`);
      return entry;
    });
  }
  const contextId = requireContextId(input.contextId);
  return store.update(contextScope(contextId), async (writer) => {
    const current = await loadContextMemory(writer, contextId, now);
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
      await saveContextMeta(writer, meta, current.document);
    await saveContextPrimary(writer, document);
    await saveContextMeta(writer, meta, document);
    return existing ?? entry;
  });
}
