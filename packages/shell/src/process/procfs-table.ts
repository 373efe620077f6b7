import { readdirSync, readFileSync } from "node:fs";
import type { ProcessInfo, ProcessTable } from "./process-table.js";

/** A process table over Linux's /proc: start times are kernel ticks (field 22 of stat). */
export function createProcfsTable(): ProcessTable {
  return {
    source: "procfs",
    read(pids) {
      const found = new Map<number, ProcessInfo>();
      for (const pid of pids) {
        const info = readStat(pid);
        if (info) found.set(pid, info);
      }
      return found;
    },
    list() {
      let names: string[];
      try {
        names = readdirSync("/proc");
      } catch {
        return [];
      }
      const all: ProcessInfo[] = [];
      for (const name of names) {
        if (!/^\d+$/.test(name)) continue;
        const pid = Number(name);
        if (pid === process.pid) continue;
        const info = readStat(pid);
        if (info) all.push(info);
      }
      return all;
    },
    hasEnvironment(pid, marker) {
      let environ: Buffer;
      try {
        environ = readFileSync(`/proc/${pid}/environ`);
      } catch {
        return false;
      }
      // Kernel threads (children of kthreadd, pid 2) have no environment; anything else with an
      // empty one is most likely between the old and the new image of an execve.
      if (environ.length === 0) return pid === 2 || readStat(pid)?.ppid === 2 ? false : undefined;
      return environ.indexOf(marker) !== -1;
    },
  };
}

function readStat(pid: number): ProcessInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name may contain spaces and parentheses; fields resume after the last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    startTime: fields[19] ?? "",
  };
}
