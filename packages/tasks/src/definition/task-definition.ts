import { z } from "zod";
import type { TaskWhen } from "../schedule/task-when.js";
import type { TaskId } from "./task-id.js";

/** Lifecycle of a task: scheduled, paused by someone, or a one-shot that already fired. */
export type TaskStatus = "enabled" | "paused" | "done";

/** What to do about a fire missed while the scheduler was down: run it once at start, or skip it. */
export type TaskCatchUp = "skip" | "once";

/** Schema of `task.md`'s YAML front matter (unknown keys are kept in the file and ignored). */
export const taskFrontMatterSchema = z.looseObject({
  title: z.string().trim().min(1, "give the task a short title").max(200),
  when: z
    .string()
    .trim()
    .min(1, "say when it runs: a cron expression, @daily, @manual or time:<ISO with offset>"),
  timezone: z.string().trim().min(1).optional(),
  notify: z.string().trim().min(1).max(512).optional(),
  status: z.enum(["enabled", "paused", "done"]).default("enabled"),
  catchUp: z.enum(["skip", "once"]).default("once"),
});

/** A validated task: its front matter, parsed schedule and the instruction body. */
export interface TaskDefinition {
  id: TaskId;
  title: string;
  /** The `when` text as written. */
  when: string;
  schedule: TaskWhen;
  /** The IANA time zone the schedule is read in (the file's, else the machine's). */
  timezone: string;
  /** True when `timezone` was written in the file rather than defaulted. */
  timezoneExplicit: boolean;
  notify?: string;
  status: TaskStatus;
  catchUp: TaskCatchUp;
  /** The instruction the agent runs. */
  body: string;
  /** Absolute path of the task.md. */
  path: string;
}

/** A task file that could not be used: which file, which field and why. It is skipped, never fatal. */
export interface TaskFileProblem {
  path: string;
  field: string;
  reason: string;
}
