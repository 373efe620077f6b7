import { readFileSync } from "node:fs";

/** Fields of /proc/<pid>/stat after the command name, or null off Linux or for a gone process. */
function procStatFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** Reads a process's kernel start time (field 22 of /proc/<pid>/stat), or null off Linux. */
export function processStartTime(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}

/** True when `pid` runs and, if a start time is known, is still the same process (a zombie is dead). */
export function isProcessAlive(pid: number, startTime?: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return true;
    return false;
  }
  const fields = procStatFields(pid);
  // A killed child stays a zombie until its parent reaps it: it holds nothing and never comes back.
  if (fields && (fields[0] === "Z" || fields[0] === "X")) return false;
  if (startTime) {
    const current = fields?.[19] ?? null;
    if (current !== null && current !== startTime) return false;
  }
  return true;
}
