import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";

const shellIdPattern = /^sh_[a-z0-9]{6,40}$/;
const finished = new Set(["exited", "killed", "timed_out", "failed", "lost"]);

/** When a session folder's session ended, or undefined while it may still run. */
async function endedAt(folder: string): Promise<number | undefined> {
  const text = await readFile(join(folder, "snapshot.json"), "utf8").catch(() => undefined);
  if (text === undefined) {
    // No snapshot (a crash before the first write): the folder's last change stands for the end.
    return (await stat(folder)).mtimeMs;
  }
  let snapshot: { status?: string; ended_at?: string | null };
  try {
    snapshot = JSON.parse(text) as typeof snapshot;
  } catch {
    return (await stat(folder)).mtimeMs;
  }
  if (!snapshot.status || !finished.has(snapshot.status)) return undefined;
  const ended = snapshot.ended_at ? Date.parse(snapshot.ended_at) : Number.NaN;
  return Number.isNaN(ended) ? (await stat(folder)).mtimeMs : ended;
}

/**
 * Deletes the folders of shell sessions (`.downcity/shell/<shell_id>/`: output log, snapshot) that
 * ended before `before`; a session still starting or running is never touched, whatever its age.
 * Returns how many were deleted.
 */
export async function pruneShellSessions(shellDir: string, before: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(shellDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (!shellIdPattern.test(name)) continue;
    const folder = join(shellDir, name);
    const ended = await endedAt(folder).catch(() => undefined);
    if (ended === undefined || ended >= before.getTime()) continue;
    await rm(folder, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
