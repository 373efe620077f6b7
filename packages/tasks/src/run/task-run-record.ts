import type { TaskId } from "../definition/task-id.js";

/** Why a run happened: the schedule, a person or agent, or a fire missed during downtime. */
export type TaskRunTrigger = "cron" | "manual" | "catch-up";

/** Where a run is: waiting behind a running run, running, or finished one of three ways. */
export type TaskRunStatus = "queued" | "running" | "succeeded" | "failed" | "interrupted";

/** `run.json` of a run folder (written atomically at start and end), plus its folder. */
export interface TaskRunRecord {
  taskId: TaskId;
  runId: string;
  contextId: string;
  trigger: TaskRunTrigger;
  /** When the schedule wanted the run (for manual runs: when it was requested). */
  scheduledFor: string;
  startedAt?: string;
  endedAt?: string;
  status: TaskRunStatus;
  error?: { code: string; message: string };
  /** The context the result was announced to. */
  notify?: string;
  /** The worker that ran it (on a shared store). */
  worker?: string;
  /** Absolute path of the run folder (not stored in run.json). */
  dir: string;
}
