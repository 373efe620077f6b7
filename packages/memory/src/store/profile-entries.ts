import { readTextFile } from "./context-memory.js";
import type { MemoryEntry } from "./memory-entry.js";
import { profileFiles } from "./memory-files.js";
import { parseMemoryLine } from "./primary-markdown.js";

/** The entries of `.downcity/profile/Primary.md` (lines written in the entry format). */
export async function readProfileEntries(rootDir: string, now: () => Date): Promise<MemoryEntry[]> {
  const markdown = await readTextFile(profileFiles(rootDir).primary);
  return markdown
    .split(/\r?\n/)
    .map((line) => parseMemoryLine(line, now))
    .filter((entry): entry is MemoryEntry => entry !== undefined);
}
