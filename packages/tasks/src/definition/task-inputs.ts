import { z } from "zod";

const id = z.string().describe('The task id, a lowercase slug such as "daily-report"');
const when = z
  .string()
  .describe(
    'When it runs: 5-field cron ("0 9 * * 1-5"), 6 fields with seconds first, @hourly, @daily, @weekly, @manual, or time:<ISO 8601 with offset> for a one-shot',
  );
const fields = {
  title: z.string().min(1).max(200).describe("A short title"),
  when,
  timezone: z.string().optional().describe("IANA time zone of the schedule (default: the machine's)"),
  notify: z.string().optional().describe("The context id that hears each result (default: the calling chat)"),
  catchUp: z
    .enum(["skip", "once"])
    .optional()
    .describe("Run a fire missed during downtime once at start (default once)"),
  body: z.string().min(1).describe("The instruction the agent carries out on each run"),
};

/** Input of `task_create` / `task create`. */
export const taskCreateInput = z.object({
  id,
  ...fields,
  status: z.enum(["enabled", "paused"]).optional().describe("Start enabled (default) or paused"),
});

/** Input of `task_update` / `task update`: only the fields given change. */
export const taskUpdateInput = z.object({
  id,
  title: fields.title.optional(),
  when: when.optional(),
  timezone: fields.timezone,
  notify: fields.notify,
  catchUp: fields.catchUp,
  status: z.enum(["enabled", "paused"]).optional(),
  body: fields.body.optional(),
});

/** Input of the actions that name one task (`pause`, `resume`, `delete`). */
export const taskIdInput = z.object({ id });

/** Input of `task_run`: start a run now; `wait` blocks until it ends. */
export const taskRunInput = z.object({
  id,
  wait: z.boolean().optional().describe("Wait for the run to finish and return its final record"),
});

/** Input of `task_runs`: the newest runs of a task. */
export const taskRunsInput = z.object({
  id,
  last: z.number().int().min(1).max(200).optional().describe("How many of the newest runs (default 10)"),
});

/** Input of `task_list`. */
export const taskListInput = z.object({});

/** Parsed `task create` input. */
export type TaskCreateInput = z.output<typeof taskCreateInput>;
/** Parsed `task update` input. */
export type TaskUpdateInput = z.output<typeof taskUpdateInput>;
