import type { Logger, PluginRuntime } from "@downcity/core";
import type { TaskClock } from "./task-clock.js";

/** Options of `createTaskScheduler`. */
export interface TaskSchedulerOptions {
  rootDir: string;
  /** The runtime runs go through; give it `historyDir: (id) => taskRunHistoryDir(rootDir, id)`. */
  runtime: PluginRuntime;
  /** Time and timers (default: the system clock); tests pass a fake one. */
  clock?: TaskClock;
  logger?: Logger;
  /** Time zone of tasks that name none (default: the machine's). */
  defaultTimezone?: string;
  /** Watch `.downcity/task/` for edits (default true). */
  watch?: boolean;
  /** Cheap re-scan of the task files in case a watch event was missed (default 30 s; 0 = never). */
  rescanIntervalMs?: number;
  /** A fire handled later than this counts as missed (catch-up rules apply); default 60 s. */
  lateToleranceMs?: number;
  /** How long `close()` lets running runs finish before marking them interrupted (default 5 s). */
  closeGraceMs?: number;
}
