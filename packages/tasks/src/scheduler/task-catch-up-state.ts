import { errorFields, type Logger } from "@downcity/core";
import type { TaskDefinition } from "../definition/task-definition.js";
import { latestFireBetween, nextFireAfter } from "../schedule/task-when.js";
import { createSchedulerStateFile, type TaskScheduleState } from "../store/scheduler-state-file.js";

/** The scheduler's per-task memory of fires across restarts, and the first-fire rule built on it. */
export interface TaskCatchUpState {
  /** True once the state file was read. */
  readonly loaded: boolean;
  /** Reads the state file the first time; later calls keep the state in memory. */
  load(): Promise<void>;
  /** Remembers when a task was first seen (the catch-up baseline before any fire). */
  markSeen(taskId: string, at: Date): void;
  /** Remembers the scheduled time of the last fire handled (run or skipped). */
  markFired(taskId: string, at: Date): void;
  /** Takes in the latest fire of each task recorded in the store (by any worker); the later one wins. */
  mergeFires(lastFires: Record<string, string>): void;
  /** Forgets tasks whose folder no longer holds a task.md. */
  retain(present: Set<string>): void;
  /** The first fire of a task as it enters the schedule; `loaded` tasks may catch up on downtime. */
  firstFire(task: TaskDefinition, mode: "loaded" | "edited", now: Date): Date | undefined;
  /** Writes the state if it changed; writes are serialized and never throw. */
  persist(): Promise<void>;
  /** Resolves when the last write settled. */
  settled(): Promise<void>;
}

/** Creates the catch-up state of a project root, kept in `.downcity/task/.scheduler-state.json`. */
export function createTaskCatchUpState(options: { rootDir: string; logger: Logger }): TaskCatchUpState {
  const { logger } = options;
  const stateFile = createSchedulerStateFile(options.rootDir);
  let state: Record<string, TaskScheduleState> | undefined;
  let dirty = false;
  let write: Promise<void> = Promise.resolve();

  return {
    get loaded() {
      return state !== undefined;
    },
    async load() {
      if (!state) state = await stateFile.read();
    },
    markSeen(taskId, at) {
      if (!state || state[taskId]) return;
      state[taskId] = { seenAt: at.toISOString() };
      dirty = true;
    },
    markFired(taskId, at) {
      if (!state) return;
      state[taskId] = { ...(state[taskId] ?? { seenAt: at.toISOString() }), lastFireAt: at.toISOString() };
      dirty = true;
    },
    mergeFires(lastFires) {
      if (!state) return;
      for (const [taskId, at] of Object.entries(lastFires)) {
        const known = state[taskId]?.lastFireAt;
        if (known && Date.parse(known) >= Date.parse(at)) continue;
        state[taskId] = { ...(state[taskId] ?? { seenAt: at }), lastFireAt: at };
        dirty = true;
      }
    },
    retain(present) {
      if (!state) return;
      for (const id of Object.keys(state)) {
        if (!present.has(id)) {
          delete state[id];
          dirty = true;
        }
      }
    },
    firstFire(task, mode, now) {
      if (task.status !== "enabled") return undefined;
      const { schedule } = task;
      if (schedule.kind === "manual") return undefined;
      if (schedule.kind === "once") return schedule.at;
      const remembered = state?.[task.id];
      const reference = remembered?.lastFireAt ?? remembered?.seenAt;
      if (mode === "loaded" && reference) {
        const missed = latestFireBetween(schedule, new Date(reference), now, task.timezone);
        if (missed) return missed;
      }
      return nextFireAfter(schedule, now, task.timezone);
    },
    persist() {
      if (!dirty || !state) return write;
      dirty = false;
      const snapshot = { ...state };
      write = write
        .then(() => stateFile.write(snapshot))
        .catch((error) =>
          logger.error({ path: stateFile.path, ...errorFields(error) }, "cannot write task state"),
        );
      return write;
    },
    settled() {
      return write;
    },
  };
}
