import { readdirSync, readFileSync } from "node:fs";

/** A process identified by pid and kernel start time, so a reused pid is never mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** Reads the kernel start time of a pid (field 22 of /proc/<pid>/stat), or undefined when gone. */
export function readProcessStartTime(pid: number): string | undefined {
  const stat = readStat(pid);
  return stat?.startTime;
}

/** Tells whether the process with this identity is still the same live process. */
export function isSameProcessAlive(identity: ProcessIdentity): boolean {
  const stat = readStat(identity.pid);
  return stat !== undefined && stat.state !== "Z" && stat.startTime === identity.startTime;
}

interface ProcessStat {
  state: string;
  ppid: number;
  pgid: number;
  startTime: string;
}

function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name may contain spaces and parentheses; fields resume after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19] ?? "",
  };
}

function listPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

function environHasMarker(pid: number, marker: Buffer): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.indexOf(marker) !== -1;
  } catch {
    return false;
  }
}

/**
 * Finds every live process belonging to a session: the root (if pid and start time match), its
 * process group and descendants, and any process carrying the session's environment marker
 * (`DC_CTX_SHELL_ID=<id>`), which catches children that left the group via setsid or nohup.
 */
export function findSessionProcesses(root: ProcessIdentity | undefined, marker: string): ProcessIdentity[] {
  const markerBytes = Buffer.from(`${marker}\0`);
  const rootAlive = root !== undefined && isSameProcessAlive(root);
  const stats = new Map<number, ProcessStat>();
  for (const pid of listPids()) {
    const stat = readStat(pid);
    if (stat && stat.state !== "Z") stats.set(pid, stat);
  }
  const found = new Map<number, string>();
  if (rootAlive && root) found.set(root.pid, root.startTime);
  for (const [pid, stat] of stats) {
    if (found.has(pid)) continue;
    if ((rootAlive && root && stat.pgid === root.pid) || environHasMarker(pid, markerBytes)) {
      found.set(pid, stat.startTime);
    }
  }
  // Descendants of anything found so far (a child may have cleared its environment).
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, stat] of stats) {
      if (!found.has(pid) && found.has(stat.ppid)) {
        found.set(pid, stat.startTime);
        grew = true;
      }
    }
  }
  return [...found].map(([pid, startTime]) => ({ pid, startTime }));
}

/** Sends a signal to each process that is still the same process; returns how many were signalled. */
export function signalProcesses(processes: ProcessIdentity[], signal: NodeJS.Signals): number {
  let count = 0;
  for (const identity of processes) {
    if (!isSameProcessAlive(identity)) continue;
    try {
      process.kill(identity.pid, signal);
      count++;
    } catch {
      // Already gone or not ours to signal.
    }
  }
  return count;
}
