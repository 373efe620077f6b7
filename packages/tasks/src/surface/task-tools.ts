import { DowncityError, type RunContext, type ToolSource } from "@downcity/core";
import { tool } from "ai";
import {
  taskCreateInput,
  taskIdInput,
  taskListInput,
  taskRunInput,
  taskRunsInput,
  taskUpdateInput,
} from "../definition/task-inputs.js";
import type { TaskScheduler } from "../scheduler/task-scheduler.js";

/** A typed failure as the model sees it, so it can correct the call instead of the run failing. */
export interface TaskToolError {
  error: string;
  message: string;
}

async function guarded<Result>(run: () => Promise<Result>): Promise<Result | TaskToolError> {
  try {
    return await run();
  } catch (error) {
    if (DowncityError.isInstance(error)) return { error: error.code, message: error.message };
    throw error;
  }
}

/**
 * The agent tools `task_list`, `task_create`, `task_update`, `task_run`, `task_pause`,
 * `task_resume`, `task_delete` and `task_runs`, built per run so a new task notifies the calling chat by default.
 */
export function createTaskTools(scheduler: TaskScheduler): ToolSource {
  return (run: RunContext) => ({
    task_list: tool({
      description: "List scheduled/manual tasks with status and next fire time, plus malformed task files.",
      inputSchema: taskListInput,
      execute: () => guarded(() => scheduler.list()),
    }),
    task_create: tool({
      description:
        "Create a task the agent runs on a schedule or on demand. The result of each run is announced to `notify` (default: this chat).",
      inputSchema: taskCreateInput,
      execute: (input) => guarded(() => scheduler.create(input, { callerContextId: run.contextId })),
    }),
    task_update: tool({
      description: "Change fields of a task; only the fields given change.",
      inputSchema: taskUpdateInput,
      execute: (input) => guarded(() => scheduler.update(input)),
    }),
    task_run: tool({
      description:
        "Run a task now. Returns when the run has started (the result is announced when it ends); wait: true blocks until it ends.",
      inputSchema: taskRunInput,
      execute: (input) => guarded(() => scheduler.run(input.id, input.wait ? { wait: true } : {})),
    }),
    task_pause: tool({
      description: "Pause a task's schedule.",
      inputSchema: taskIdInput,
      execute: (input) => guarded(() => scheduler.pause(input.id)),
    }),
    task_resume: tool({
      description: "Resume a paused task's schedule.",
      inputSchema: taskIdInput,
      execute: (input) => guarded(() => scheduler.resume(input.id)),
    }),
    task_delete: tool({
      description: "Delete a task and all its run folders.",
      inputSchema: taskIdInput,
      execute: (input) => guarded(() => scheduler.delete(input.id)),
    }),
    task_runs: tool({
      description: "The newest runs of a task (status, times, error), newest first.",
      inputSchema: taskRunsInput,
      execute: (input) => guarded(() => scheduler.runs(input.id, input.last ? { last: input.last } : {})),
    }),
  });
}
