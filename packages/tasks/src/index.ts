/**
 * The complete public surface of @downcity/tasks: task files, the scheduler, run folders, and the
 * `task` service and `task_*` agent tools over them. Nothing else is public.
 */
export type {
  TaskCatchUp,
  TaskDefinition,
  TaskFileProblem,
  TaskStatus,
} from "./definition/task-definition.js";
export { editTaskFile, parseTaskFile, renderTaskFile, type TaskFileFields } from "./definition/task-file.js";
export { type TaskId, taskIdPattern, toTaskId } from "./definition/task-id.js";
export {
  type TaskCreateInput,
  type TaskUpdateInput,
  taskCreateInput,
  taskIdInput,
  taskListInput,
  taskRunInput,
  taskRunsInput,
  taskUpdateInput,
} from "./definition/task-inputs.js";
export {
  formatRunId,
  parseTaskRunContextId,
  runIdPattern,
  taskDir,
  taskFilePath,
  taskRootDir,
  taskRunContextId,
  taskRunDir,
  taskRunHistoryDir,
} from "./definition/task-paths.js";
export { type RunTaskOptions, type RunTaskOutcome, runTask, taskRunMessage } from "./run/run-task.js";
export type { TaskRunRecord, TaskRunStatus, TaskRunTrigger } from "./run/task-run-record.js";
export {
  assertTimeZone,
  latestFireBetween,
  machineTimeZone,
  nextFireAfter,
  parseWhen,
  type TaskWhen,
} from "./schedule/task-when.js";
export { systemClock, type TaskClock } from "./scheduler/task-clock.js";
export { createTaskScheduler, type TaskScheduler } from "./scheduler/task-scheduler.js";
export type { TaskSchedulerEvent, TaskSchedulerListener } from "./scheduler/task-scheduler-event.js";
export type { TaskSchedulerOptions } from "./scheduler/task-scheduler-options.js";
export type { TaskSummary } from "./scheduler/task-summary.js";
export { createTaskService } from "./surface/task-service.js";
export { createTaskTools, type TaskToolError } from "./surface/task-tools.js";
export { tasksPlugin } from "./surface/tasks-plugin.js";
