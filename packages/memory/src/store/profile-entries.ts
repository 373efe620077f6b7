import type { MemoryStore } from "@downcity/core";
import { profileScope } from "./context-memory.js";
import type { MemoryEntry } from "./memory-entry.js";
import { parseMemoryLine } from "./primary-markdown.js";

/** The entries of the profile's Primary.md (lines written in the entry format). */
export async function readProfileEntries(store: MemoryStore, now: () => Date): Promise<MemoryEntry[]> {
  const { primary } = await store.read(profileScope);
  return primary
    .split(/\r?\n/)
    .map((line) => parseMemoryLine(line, now))
    .filter((entry): entry is MemoryEntry => entry !== undefined);
}
