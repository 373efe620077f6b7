import type { Logger, PluginRuntime, TaskStore } from "@downcity/core";
import type { RunTaskOptions } from "../run/run-task.js";
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
  /**
   * Where tasks, fires and runs live (default: the file driver over `.downcity/task/`). With a
   * shared store (`DowncityStore.tasks` of `@downcity/store-postgres`) every worker lists and edits
   * the same tasks and only the holder of the scheduler lease fires them.
   */
  store?: TaskStore;
  /** This worker's name in the lease, fires and run records (default `<hostname>:<rootDir>`). */
  worker?: string;
  /** How long the scheduler lease lasts unrenewed (default 15 s; renewed every third of it). */
  leaseMs?: number;
  /** How a run's result reaches its notify context (default `runtime.send` as an internal message). */
  announce?: RunTaskOptions["announce"];
}
