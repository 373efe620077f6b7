import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";

const dayFile = /^(\d{4}-\d{2}-\d{2})\.jsonl$/;

/**
 * Deletes the `YYYY-MM-DD.jsonl` files of `dir` for days wholly before `before` (UTC); other files
 * are left alone. Returns how many were deleted; a missing folder has none.
 */
export async function pruneDayFiles(dir: string, before: Date): Promise<number> {
  const cutoff = before.toISOString().slice(0, 10);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const day = dayFile.exec(name)?.[1];
    if (!day || day >= cutoff) continue;
    await rm(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}
