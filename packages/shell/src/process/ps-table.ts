import { execFileSync } from "node:child_process";
import type { ProcessInfo, ProcessTable } from "./process-table.js";

const COLUMNS = "pid=,ppid=,pgid=,stat=,lstart=";
// pid ppid pgid stat, then the start time, which contains spaces ("Mon Nov 23 04:29:27 2026").
const LINE = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/;

/**
 * A process table over `ps` for systems without /proc (macOS): start times are `lstart` (to the
 * second), and environments cannot be read.
 */
export function createPsTable(): ProcessTable {
  return {
    source: "ps",
    read(pids) {
      const found = new Map<number, ProcessInfo>();
      if (pids.length === 0) return found;
      for (const info of runPs(["-o", COLUMNS, "-p", pids.join(",")])) found.set(info.pid, info);
      return found;
    },
    list() {
      return runPs(["-A", "-o", COLUMNS]).filter((info) => info.pid !== process.pid);
    },
    hasEnvironment() {
      return false;
    },
  };
}

function runPs(args: string[]): ProcessInfo[] {
  let output: string;
  try {
    // A fixed locale keeps lstart comparable between calls.
    output = execFileSync("ps", args, {
      encoding: "utf8",
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch (error) {
    // ps exits 1 when none of the asked pids exists; what it printed is still the answer.
    output = String((error as { stdout?: unknown }).stdout ?? "");
  }
  const all: ProcessInfo[] = [];
  for (const line of output.split("\n")) {
    const match = LINE.exec(line);
    if (!match) continue;
    all.push({
      pid: Number(match[1]),
      ppid: Number(match[2]),
      pgid: Number(match[3]),
      state: (match[4] ?? "").charAt(0),
      startTime: match[5] ?? "",
    });
  }
  return all;
}
