import type { Dirent } from "node:fs";
import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError, writeFileAtomic } from "@downcity/core";
import type { TaskDefinition, TaskFileProblem } from "../definition/task-definition.js";
import { parseTaskFile } from "../definition/task-file.js";
import { type TaskId, taskIdPattern } from "../definition/task-id.js";
import { runIdPattern, taskDir, taskFilePath, taskRootDir } from "../definition/task-paths.js";
import type { TaskRunRecord } from "../run/task-run-record.js";

/** What a scan of `.downcity/task/` found: usable tasks, and files reported as unusable. */
export interface TaskScan {
  tasks: TaskDefinition[];
  problems: TaskFileProblem[];
  /** Ids whose folder holds a task.md, valid or not (a malformed task is not a deleted one). */
  present: Set<string>;
  /** Every non-hidden folder under `.downcity/task/` (watched so a task.md written later is noticed). */
  folders: string[];
}

/** Reads and writes task files and run folders under `.downcity/task/`. */
export interface TaskStore {
  readonly dir: string;
  scan(): Promise<TaskScan>;
  /** The raw task.md, or undefined when the task does not exist. */
  readText(id: TaskId): Promise<string | undefined>;
  writeText(id: TaskId, text: string): Promise<void>;
  remove(id: TaskId): Promise<void>;
  /** The newest runs first, at most `last`. */
  runs(id: TaskId, last: number): Promise<TaskRunRecord[]>;
}

function isMissing(error: unknown): boolean {
  return (
    (error as NodeJS.ErrnoException)?.code === "ENOENT" ||
    (error as NodeJS.ErrnoException)?.code === "ENOTDIR"
  );
}

/** Creates the file store of one project's tasks. */
export function createTaskStore(options: { rootDir: string; defaultTimezone?: string }): TaskStore {
  const { rootDir } = options;
  const dir = taskRootDir(rootDir);

  const readText = async (id: TaskId) => {
    try {
      return await readFile(taskFilePath(rootDir, id), "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new DowncityError(
        "INTERNAL",
        `Could not read ${taskFilePath(rootDir, id)}: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  };

  return {
    dir,
    async scan() {
      const tasks: TaskDefinition[] = [];
      const problems: TaskFileProblem[] = [];
      const present = new Set<string>();
      const folders: string[] = [];
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) return { tasks, problems, present, folders };
        throw error;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const name = entry.name;
        if (name.startsWith(".") || !entry.isDirectory()) continue;
        folders.push(name);
        const path = join(dir, name, "task.md");
        let text: string;
        try {
          text = await readFile(path, "utf8");
        } catch {
          continue; // not a task folder (or a task being created/deleted right now)
        }
        present.add(name);
        if (!taskIdPattern.test(name)) {
          problems.push({
            path,
            field: "id",
            reason: `folder name "${name}" is not a valid task id: use lowercase letters, digits and dashes (e.g. "daily-report")`,
          });
          continue;
        }
        const parsed = parseTaskFile(text, {
          id: name as TaskId,
          path,
          ...(options.defaultTimezone ? { defaultTimezone: options.defaultTimezone } : {}),
        });
        if (parsed.task) tasks.push(parsed.task);
        else problems.push(...parsed.problems);
      }
      return { tasks, problems, present, folders };
    },
    readText,
    async writeText(id, text) {
      await mkdir(taskDir(rootDir, id), { recursive: true });
      await writeFileAtomic(taskFilePath(rootDir, id), text);
    },
    async remove(id) {
      await rm(taskDir(rootDir, id), { recursive: true, force: true });
    },
    async runs(id, last) {
      let names: string[];
      try {
        names = await readdir(taskDir(rootDir, id));
      } catch (error) {
        if (isMissing(error)) return [];
        throw error;
      }
      const runIds = names
        .filter((name) => runIdPattern.test(name))
        .sort()
        .reverse()
        .slice(0, last);
      const records: TaskRunRecord[] = [];
      for (const runId of runIds) {
        const runDir = join(taskDir(rootDir, id), runId);
        try {
          const record = JSON.parse(await readFile(join(runDir, "run.json"), "utf8")) as TaskRunRecord;
          records.push({ ...record, dir: runDir });
        } catch {
          const info = await stat(runDir).catch(() => undefined);
          if (info?.isDirectory()) {
            records.push({
              taskId: id,
              runId,
              contextId: `task-run:${id}:${runId}`,
              trigger: "manual",
              scheduledFor: "",
              status: "interrupted",
              error: { code: "RUN_RECORD_MISSING", message: "run.json is missing or unreadable" },
              dir: runDir,
            });
          }
        }
      }
      return records;
    },
  };
}
