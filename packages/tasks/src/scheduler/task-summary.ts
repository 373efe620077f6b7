import type { TaskDefinition } from "../definition/task-definition.js";
import type { TaskId } from "../definition/task-id.js";
import type { ScheduledTask } from "./scheduled-tasks.js";
import type { ActiveTaskRun } from "./task-run-launcher.js";

/** A task as listed: its definition, next fire time and the run under way. */
export interface TaskSummary {
  id: TaskId;
  title: string;
  when: string;
  timezone: string;
  notify?: string;
  status: TaskDefinition["status"];
  catchUp: TaskDefinition["catchUp"];
  body: string;
  path: string;
  /** ISO time of the next scheduled fire, or null (manual, paused, done). */
  nextFireAt: string | null;
  /** The run under way, if any. */
  running: { runId: string; startedAt?: string } | null;
}

/** Summarizes a scheduled task and the run under way (if any) for listings. */
export function summarizeTask(entry: ScheduledTask, active: ActiveTaskRun | undefined): TaskSummary {
  const { task } = entry;
  return {
    id: task.id,
    title: task.title,
    when: task.when,
    timezone: task.timezone,
    ...(task.notify ? { notify: task.notify } : {}),
    status: task.status,
    catchUp: task.catchUp,
    body: task.body,
    path: task.path,
    nextFireAt: entry.nextFireAt ? entry.nextFireAt.toISOString() : null,
    running: active
      ? { runId: active.runId, ...(active.record?.startedAt ? { startedAt: active.record.startedAt } : {}) }
      : null,
  };
}
