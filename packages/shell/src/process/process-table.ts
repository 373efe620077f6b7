import { existsSync } from "node:fs";
import { createProcfsTable } from "./procfs-table.js";
import { createPsTable } from "./ps-table.js";

/** One process as the table sees it; `startTime` is opaque and only compared for equality. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** First letter of the state; `Z` is a zombie. */
  state: string;
  startTime: string;
}

/** Where a table reads processes from: Linux's /proc, or `ps` (macOS and other systems without /proc). */
export type ProcessTableSource = "procfs" | "ps";

/** How the engine discovers processes, so close and recovery work with or without /proc. */
export interface ProcessTable {
  readonly source: ProcessTableSource;
  /** The processes with these pids that still exist (gone ones are left out). */
  read(pids: readonly number[]): Map<number, ProcessInfo>;
  /** Every process but this one. */
  list(): ProcessInfo[];
  /**
   * True when the process's environment holds `marker` (`NAME=value\0`), undefined when it
   * cannot tell right now (an empty environment: a process in the middle of execve). Only /proc
   * can tell at all, so a `ps` table always answers false.
   */
  hasEnvironment(pid: number, marker: Buffer): boolean | undefined;
}

/** Creates the process table for `source` [auto: /proc when this system has it, else ps]. */
export function createProcessTable(source: ProcessTableSource | "auto" = "auto"): ProcessTable {
  const chosen = source === "auto" ? (existsSync("/proc/self/stat") ? "procfs" : "ps") : source;
  return chosen === "procfs" ? createProcfsTable() : createPsTable();
}
