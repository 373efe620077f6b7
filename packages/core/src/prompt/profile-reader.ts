import { statSync } from "node:fs";
import { join } from "node:path";
import { readTextFileIfExists } from "../fs/raw-file.js";

/**
 * Reads the project's `PROFILE.md` for every run, from memory while the file is unchanged: a
 * synchronous `stat` (no thread-pool round trip, no error thrown for a missing file) compares its
 * inode, size and modification time with the copy read last; undefined when absent or empty.
 */
export function createProfileReader(rootDir: string): () => Promise<string | undefined> {
  const path = join(rootDir, "PROFILE.md");
  let cached: { key: string; profile: string | undefined } | undefined;
  return async () => {
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!stats) {
      cached = undefined;
      return undefined;
    }
    const key = `${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    if (cached?.key === key) return cached.profile;
    const profile = (await readTextFileIfExists(path))?.trim() || undefined;
    cached = { key, profile };
    return profile;
  };
}
