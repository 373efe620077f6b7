import { readFileSync } from "node:fs";

/**
 * Whether the process `pid` is still running. A zombie counts as dead: in a container whose pid 1 never
 * reaps orphans, a killed detached process lingers as one, and signal 0 still reaches it. Where there is
 * no `/proc` (macOS), signal 0 alone decides.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // Gone between the signal and the read (Linux), or a system without /proc.
    return process.platform !== "linux";
  }
  // The state letter follows the command name, which is in parentheses and may itself hold ") ".
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}
