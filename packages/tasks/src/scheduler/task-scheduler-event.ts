import type { TaskFileProblem } from "../definition/task-definition.js";
import type { TaskRunStatus, TaskRunTrigger } from "../run/task-run-record.js";

/** Something the scheduler did, for logs, UIs and tests. */
export type TaskSchedulerEvent =
  | { type: "task-run-start"; taskId: string; runId: string; trigger: TaskRunTrigger; scheduledFor: string }
  | { type: "task-run-end"; taskId: string; runId: string; status: TaskRunStatus }
  | { type: "task-run-queued"; taskId: string; runId: string }
  | {
      type: "task-run-skip";
      taskId: string;
      scheduledFor: string;
      /**
       * `overlap`: the previous run was still going; `missed`: a late fire of a `catchUp: skip` task;
       * `fired`: the store already held this fire (another scheduler recorded it first).
       */
      reason: "overlap" | "missed" | "fired";
    }
  | { type: "task-file-invalid"; problem: TaskFileProblem }
  | { type: "tasks-reload"; tasks: number; problems: number }
  /** This worker took the scheduler lease (`leading: true`) or lost it. */
  | { type: "task-scheduler-lease"; leading: boolean; worker: string };

/** Receives scheduler events; must not throw. */
export type TaskSchedulerListener = (event: TaskSchedulerEvent) => void;
