import { join } from "node:path";
import { downcityPaths } from "@downcity/core";
import type { TaskId } from "./task-id.js";
import { taskIdPattern } from "./task-id.js";

/** Shape of a run id (and run folder name): a UTC timestamp safe in paths, e.g. `2025-03-09T07-30-00-000Z`. */
export const runIdPattern = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;

/** `.downcity/task`, the folder holding every task. */
export function taskRootDir(rootDir: string): string {
  return downcityPaths(rootDir).tasksDir;
}

/** `.downcity/task/<taskId>`. */
export function taskDir(rootDir: string, taskId: TaskId): string {
  return join(taskRootDir(rootDir), taskId);
}

/** `.downcity/task/<taskId>/task.md`. */
export function taskFilePath(rootDir: string, taskId: TaskId): string {
  return join(taskDir(rootDir, taskId), "task.md");
}

/** `.downcity/task/<taskId>/<runId>`, the audit folder of one run. */
export function taskRunDir(rootDir: string, taskId: TaskId, runId: string): string {
  return join(taskDir(rootDir, taskId), runId);
}

/** Formats an instant as a run id. */
export function formatRunId(at: Date): string {
  return at.toISOString().replace(/:/g, "-").replace(".", "-");
}

/** The context id a run talks in: `task-run:<taskId>:<runId>`. */
export function taskRunContextId(taskId: TaskId, runId: string): string {
  return `task-run:${taskId}:${runId}`;
}

/** Splits a `task-run:<taskId>:<runId>` context id; undefined for any other context id. */
export function parseTaskRunContextId(contextId: string): { taskId: TaskId; runId: string } | undefined {
  const match = /^task-run:([^:]+):([^:]+)$/.exec(contextId);
  if (!match) return undefined;
  const [, taskId, runId] = match as unknown as [string, string, string];
  if (!taskIdPattern.test(taskId) || !runIdPattern.test(runId)) return undefined;
  return { taskId: taskId as TaskId, runId };
}

/**
 * Where a context keeps its history: a task run's run folder, or undefined (the default location)
 * for other contexts. Pass it to `createAgentRuntime({ historyDir })` so `messages.jsonl` lands there.
 */
export function taskRunHistoryDir(rootDir: string, contextId: string): string | undefined {
  const parsed = parseTaskRunContextId(contextId);
  return parsed ? taskRunDir(rootDir, parsed.taskId, parsed.runId) : undefined;
}
