import type { ProcessTable } from "./process-table.js";

/** A process identified by pid and start time, so a reused pid is never mistaken for it. */
export interface ProcessIdentity {
  pid: number;
  startTime: string;
}

/** Reads the start time of a pid, or undefined when it is gone. */
export function readProcessStartTime(table: ProcessTable, pid: number): string | undefined {
  return table.read([pid]).get(pid)?.startTime;
}

/** Tells whether the process with this identity is still the same live process. */
export function isSameProcessAlive(table: ProcessTable, identity: ProcessIdentity): boolean {
  const info = table.read([identity.pid]).get(identity.pid);
  return info !== undefined && info.state !== "Z" && info.startTime === identity.startTime;
}

/** What a scan found, and whether a process it could not judge (mid-execve) calls for another scan. */
export interface ProcessScan {
  processes: ProcessIdentity[];
  uncertain: boolean;
}

/**
 * Finds every live process belonging to a session: the root (if pid and start time match), its
 * process group and descendants, and (where /proc can tell) any process carrying the session's
 * environment marker (`DC_CTX_SHELL_ID=<id>`), which catches children that left the group via
 * setsid or nohup and were re-parented. `known` are processes found by an earlier scan: they
 * (and their descendants) still count once the root is gone and can no longer vouch for its group.
 */
export function findSessionProcesses(
  table: ProcessTable,
  root: ProcessIdentity | undefined,
  marker: string,
  known: readonly ProcessIdentity[] = [],
): ProcessScan {
  const markerBytes = Buffer.from(`${marker}\0`);
  const live = table.list().filter((info) => info.state !== "Z");
  const rootInfo = root ? live.find((info) => info.pid === root.pid) : undefined;
  const rootAlive = root !== undefined && rootInfo?.startTime === root.startTime;
  const knownStart = new Map(known.map((identity) => [identity.pid, identity.startTime]));
  const found = new Map<number, string>();
  let uncertain = false;
  if (rootAlive && root) found.set(root.pid, root.startTime);
  for (const info of live) {
    if (found.has(info.pid)) continue;
    if (knownStart.get(info.pid) === info.startTime || (rootAlive && root && info.pgid === root.pid)) {
      found.set(info.pid, info.startTime);
      continue;
    }
    const marked = table.hasEnvironment(info.pid, markerBytes);
    if (marked) found.set(info.pid, info.startTime);
    else if (marked === undefined) uncertain = true;
  }
  // Descendants of anything found so far (a child may have cleared its environment).
  let grew = true;
  while (grew) {
    grew = false;
    for (const info of live) {
      if (!found.has(info.pid) && found.has(info.ppid)) {
        found.set(info.pid, info.startTime);
        grew = true;
      }
    }
  }
  return { processes: [...found].map(([pid, startTime]) => ({ pid, startTime })), uncertain };
}

/** Sends a signal to each process that is still the same process; returns how many were signalled. */
export function signalProcesses(
  table: ProcessTable,
  processes: ProcessIdentity[],
  signal: NodeJS.Signals,
): number {
  if (processes.length === 0) return 0;
  const current = table.read(processes.map((identity) => identity.pid));
  let count = 0;
  for (const identity of processes) {
    const info = current.get(identity.pid);
    if (!info || info.state === "Z" || info.startTime !== identity.startTime) continue;
    try {
      process.kill(identity.pid, signal);
      count++;
    } catch {
      // Already gone or not ours to signal.
    }
  }
  return count;
}

/** A signaller that sends its signal only to processes it has not signalled before. */
export function createSignalOnce(
  table: ProcessTable,
): (found: ProcessIdentity[], signal: NodeJS.Signals) => void {
  const signalled = new Set<number>();
  return (found, signal) => {
    signalProcesses(
      table,
      found.filter((identity) => !signalled.has(identity.pid)),
      signal,
    );
    for (const identity of found) signalled.add(identity.pid);
  };
}
