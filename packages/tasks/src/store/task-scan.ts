import type { TaskStore } from "@downcity/core";
import type { TaskDefinition, TaskFileProblem } from "../definition/task-definition.js";
import { parseTaskFile } from "../definition/task-file.js";
import { type TaskId, taskIdPattern } from "../definition/task-id.js";

/** What a scan of the stored tasks found: usable tasks, and definitions reported as unusable. */
export interface TaskScan {
  tasks: TaskDefinition[];
  problems: TaskFileProblem[];
  /** Ids that hold a definition, valid or not (a malformed task is not a deleted one). */
  present: Set<string>;
  /** When the store first held each task (stores that know it), the catch-up baseline before any fire. */
  createdAt: Map<string, Date>;
}

/** Reads every stored task and parses it; `pathOf` names where a task lives (its file, or its row). */
export async function scanTasks(
  store: TaskStore,
  options: { pathOf: (id: string) => string; defaultTimezone?: string },
): Promise<TaskScan> {
  const scan: TaskScan = { tasks: [], problems: [], present: new Set(), createdAt: new Map() };
  for (const stored of await store.list()) {
    const path = options.pathOf(stored.id);
    scan.present.add(stored.id);
    if (stored.createdAt) scan.createdAt.set(stored.id, new Date(stored.createdAt));
    if (!taskIdPattern.test(stored.id)) {
      scan.problems.push({
        path,
        field: "id",
        reason: `folder name "${stored.id}" is not a valid task id: use lowercase letters, digits and dashes (e.g. "daily-report")`,
      });
      continue;
    }
    const parsed = parseTaskFile(stored.text, {
      id: stored.id as TaskId,
      path,
      ...(options.defaultTimezone ? { defaultTimezone: options.defaultTimezone } : {}),
    });
    if (parsed.task) scan.tasks.push(parsed.task);
    else scan.problems.push(...parsed.problems);
  }
  return scan;
}
