import type { Logger } from "@downcity/core";
import type { TaskDefinition, TaskFileProblem } from "../definition/task-definition.js";
import type { TaskScan } from "../store/task-scan.js";
import type { TaskCatchUpState } from "./task-catch-up-state.js";
import type { TaskSchedulerEvent } from "./task-scheduler-event.js";

/** A task in the schedule: its definition, the key of its timing, and its next fire. */
export interface ScheduledTask {
  task: TaskDefinition;
  /** `when`, time zone and status: a task keeps its next fire while these stay the same. */
  key: string;
  nextFireAt?: Date;
}

/** The tasks the scheduler knows (by id) and the task files it could not use. */
export interface ScheduledTasks {
  get(id: string): ScheduledTask | undefined;
  values(): IterableIterator<ScheduledTask>;
  readonly size: number;
  readonly problems: TaskFileProblem[];
  /** Takes a scan in: reports new problems once, keeps the next fire of tasks whose timing is unchanged. */
  apply(scan: TaskScan, now: Date): void;
  /** The earliest next fire of any task. */
  nextFireAt(): Date | undefined;
  /** Forgets every next fire, so the next `apply` computes them afresh (with catch-up), as at start. */
  reset(): void;
}

const scheduleKey = (task: TaskDefinition) => `${task.when}\u0000${task.timezone}\u0000${task.status}`;

/** Creates the scheduler's table of tasks, fed by scans of the task folder. */
export function createScheduledTasks(options: {
  catchUp: TaskCatchUpState;
  logger: Logger;
  emit: (event: TaskSchedulerEvent) => void;
}): ScheduledTasks {
  const { catchUp, logger, emit } = options;
  const entries = new Map<string, ScheduledTask>();
  const reported = new Set<string>();
  let problems: TaskFileProblem[] = [];

  const reportProblems = (found: TaskFileProblem[]) => {
    problems = found;
    const current = new Set<string>();
    for (const problem of found) {
      const key = `${problem.path}\u0000${problem.field}\u0000${problem.reason}`;
      current.add(key);
      if (reported.has(key)) continue;
      reported.add(key);
      logger.warn({ ...problem }, "task file skipped: it is malformed");
      emit({ type: "task-file-invalid", problem });
    }
    for (const key of reported) if (!current.has(key)) reported.delete(key);
  };

  return {
    get: (id) => entries.get(id),
    values: () => entries.values(),
    get size() {
      return entries.size;
    },
    get problems() {
      return problems;
    },
    apply(scan, now) {
      reportProblems(scan.problems);
      const seen = new Set<string>();
      for (const task of scan.tasks) {
        seen.add(task.id);
        catchUp.markSeen(task.id, scan.createdAt.get(task.id) ?? now);
        const key = scheduleKey(task);
        const existing = entries.get(task.id);
        if (existing && existing.key === key) {
          existing.task = task;
          continue;
        }
        const next = catchUp.firstFire(task, existing ? "edited" : "loaded", now);
        entries.set(task.id, { task, key, ...(next ? { nextFireAt: next } : {}) });
      }
      for (const id of [...entries.keys()]) if (!seen.has(id)) entries.delete(id);
      catchUp.retain(scan.present);
    },
    reset() {
      entries.clear();
    },
    nextFireAt() {
      let next: number | undefined;
      for (const entry of entries.values()) {
        const at = entry.nextFireAt?.getTime();
        if (at !== undefined && (next === undefined || at < next)) next = at;
      }
      return next === undefined ? undefined : new Date(next);
    },
  };
}
