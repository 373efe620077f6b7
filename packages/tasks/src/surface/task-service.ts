import { defineService, type ServiceDefinition } from "@downcity/core";
import {
  taskCreateInput,
  taskIdInput,
  taskListInput,
  taskRunInput,
  taskRunsInput,
  taskUpdateInput,
} from "../definition/task-inputs.js";
import type { TaskScheduler } from "../scheduler/task-scheduler.js";

/**
 * The `task` service: list, create, update, run, pause, resume, delete and runs over HTTP and the
 * derived CLI (`downcity task list`); start/stop pause and resume scheduling.
 */
export function createTaskService(scheduler: TaskScheduler): ServiceDefinition {
  return defineService({
    name: "task",
    description: "Scheduled and manual agent tasks (.downcity/task/<id>/task.md) with auditable run folders",
    actions: {
      list: {
        description:
          "List tasks with their schedule, status and next fire time, and any malformed task files",
        input: taskListInput,
        handler: () => scheduler.list(),
      },
      create: {
        description: "Create a task (bad cron expressions are rejected)",
        input: taskCreateInput,
        handler: (input, context) =>
          scheduler.create(input, context.contextId ? { callerContextId: context.contextId } : {}),
      },
      update: {
        description:
          "Change a task's title, schedule, time zone, notify context, catch-up, status or instruction",
        input: taskUpdateInput,
        handler: (input) => scheduler.update(input),
      },
      run: {
        description: "Run a task now (queued behind a run under way); --wait returns the finished run",
        input: taskRunInput,
        handler: (input) => scheduler.run(input.id, input.wait ? { wait: true } : {}),
      },
      pause: {
        description: "Pause a task's schedule (manual runs still work)",
        input: taskIdInput,
        handler: (input) => scheduler.pause(input.id),
      },
      resume: {
        description: "Resume a paused task's schedule",
        input: taskIdInput,
        handler: (input) => scheduler.resume(input.id),
      },
      delete: {
        description: "Delete a task and its run folders",
        input: taskIdInput,
        handler: (input) => scheduler.delete(input.id),
      },
      runs: {
        description: "The newest runs of a task (run.json of each), newest first",
        input: taskRunsInput,
        handler: (input) => scheduler.runs(input.id, input.last ? { last: input.last } : {}),
      },
    },
    start: () => scheduler.start(),
    stop: () => scheduler.stop(),
    status: () => scheduler.status(),
  });
}
