import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Busy and total jiffies of the whole machine, from /proc/stat (Linux). */
function machineJiffies(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, value) => sum + value, 0);
    // idle + iowait are not busy.
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return undefined;
  }
}

/** CPU seconds (user + system) a process has used so far, or undefined once it is gone. */
function processSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after "(comm) ".
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** Measures the machine's CPU use and some processes' CPU time between `start` and `stop`. */
export function cpuMeter(pids: () => number[]) {
  const startMachine = machineJiffies();
  const startProcesses = new Map(pids().map((pid) => [pid, processSeconds(pid) ?? 0]));
  const started = Date.now();
  return {
    stop() {
      const wallSeconds = (Date.now() - started) / 1000;
      const endMachine = machineJiffies();
      let daemonSeconds = 0;
      for (const [pid, before] of startProcesses) daemonSeconds += (processSeconds(pid) ?? before) - before;
      const machineBusy =
        startMachine && endMachine
          ? (endMachine.busy - startMachine.busy) / Math.max(1, endMachine.total - startMachine.total)
          : Number.NaN;
      return {
        cores: availableParallelism(),
        /** Share of all cores busy (any process), 0..1. */
        machineBusy: Number(machineBusy.toFixed(2)),
        /** The daemons' CPU time over the wall time, in cores. */
        daemonCores: Number((daemonSeconds / wallSeconds).toFixed(2)),
      };
    },
  };
}
