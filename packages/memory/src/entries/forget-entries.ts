import { DowncityError, type MemoryStore } from "@downcity/core";
import {
  contextScope,
  loadContextMemory,
  profileScope,
  saveContextMeta,
  saveContextPrimary,
} from "../store/context-memory.js";
import { entryIds, type MemoryEntry, memoryTextKey } from "../store/memory-entry.js";
import { parseMemoryLine } from "../store/primary-markdown.js";
import { requireContextId } from "./require-context-id.js";

/** Input of `Memory.forget`: one entry by id, or every entry matching all words of `query`. */
export interface ForgetInput {
  contextId?: string;
  entryId?: string;
  query?: string;
  scope?: "context" | "profile";
}

/** Removes matching entries: profile lines are dropped, context entries also leave tombstones. */
export async function forgetEntries(
  options: { store: MemoryStore; now: () => Date },
  input: ForgetInput,
): Promise<{ forgotten: MemoryEntry[] }> {
  const { store, now } = options;
  if (!input.entryId && !input.query?.trim()) {
    throw new DowncityError(
      "INVALID_INPUT",
      "pass entryId (from search/status) or query (words the entries contain)",
      {
        field: "entryId",
      },
    );
  }
  // A query forgets the entries containing every one of its words (or word prefixes).
  const terms = memoryTextKey(input.query ?? "")
    .split(" ")
    .filter(Boolean);
  const matches = (entries: MemoryEntry[]) =>
    entries.filter((entry) => {
      if (input.entryId) return entryIds(entry).includes(input.entryId);
      const key = ` ${memoryTextKey(`${entry.kind} ${entry.text}`)}`;
      return terms.every((term) => key.includes(` ${term}`));
    });
  if (input.scope === "profile") {
    return store.update(profileScope, async (writer) => {
      const markdown = (await writer.read()).primary;
      const lines = markdown.split(/\r?\n/);
      const forgotten = matches(
        lines.map((line) => parseMemoryLine(line, now)).filter((entry): entry is MemoryEntry => !!entry),
      );
      if (forgotten.length === 0) return { forgotten };
      const drop = new Set(forgotten.map((entry) => entry.id));
      const kept = lines.filter((line) => {
        const entry = parseMemoryLine(line, now);
        return !entry || !drop.has(entry.id);
      });
      await writer.writePrimary(kept.join("\n"));
      return { forgotten };
    });
  }
  const contextId = requireContextId(input.contextId);
  return store.update(contextScope(contextId), async (writer) => {
    const current = await loadContextMemory(writer, contextId, now);
    const forgotten = matches(current.document.entries);
    if (forgotten.length === 0) return { forgotten };
    const forgottenAt = now().toISOString();
    const tombstones = [
      ...current.meta.tombstones,
      ...forgotten.flatMap((entry) =>
        entryIds(entry).map((id) => ({ id, textKey: memoryTextKey(entry.text), forgottenAt })),
      ),
    ];
    const drop = new Set(forgotten.map((entry) => entry.id));
    const document = {
      ...current.document,
      entries: current.document.entries.filter((entry) => !drop.has(entry.id)),
    };
    // Tombstones first: after a crash here the load filter already hides the entries.
    await saveContextMeta(writer, { ...current.meta, tombstones }, current.document);
    await saveContextPrimary(writer, document);
    await saveContextMeta(writer, { ...current.meta, tombstones }, document);
    return { forgotten };
  });
}
