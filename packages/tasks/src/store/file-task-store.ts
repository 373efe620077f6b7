import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { DowncityError, type StoredTaskRun, type TaskStore, writeFileAtomic } from "@downcity/core";
import type { TaskId } from "../definition/task-id.js";
import { formatRunId, runIdPattern, taskDir, taskFilePath, taskRootDir } from "../definition/task-paths.js";
import { createMemorySchedulerLease } from "./memory-scheduler-lease.js";

/** The file driver of the task store, with what only files have: the task folders (for watching) and the files' paths. */
export interface FileTaskStore extends TaskStore {
  readonly dir: string;
  /** Every non-hidden folder under `.downcity/task/`, with or without a task.md. */
  folders(): Promise<string[]>;
  /** The task.md of a task. */
  pathOf(id: string): string;
}

/** Fires kept per task in `.fires/` (one file each); the newest this many survive a new fire. */
const keptFires = 50;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/**
 * The task store over `.downcity/task/` (the default, one worker): `<id>/task.md` per task,
 * `<id>/<runId>/run.json` per run, `<id>/.fires/<runId>` per fire (created exclusively, so a fire is
 * recorded once), and the scheduler lease in memory.
 */
export function createFileTaskStore(options: { rootDir: string }): FileTaskStore {
  const { rootDir } = options;
  const dir = taskRootDir(rootDir);
  const id = (value: string) => value as TaskId;
  const firesDir = (taskId: string) => join(taskDir(rootDir, id(taskId)), ".fires");

  const read = async (taskId: string) => {
    try {
      return await readFile(taskFilePath(rootDir, id(taskId)), "utf8");
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw new DowncityError(
        "INTERNAL",
        `Could not read ${taskFilePath(rootDir, id(taskId))}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  };

  const folders = async () => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (isMissing(error)) return [];
      throw error;
    });
    return entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
      .map((entry) => entry.name)
      .sort((a, b) => a.localeCompare(b));
  };

  const readRun = async (taskId: string, runId: string): Promise<StoredTaskRun | undefined> => {
    const runDir = join(taskDir(rootDir, id(taskId)), runId);
    try {
      return JSON.parse(await readFile(join(runDir, "run.json"), "utf8")) as StoredTaskRun;
    } catch {
      const info = await stat(runDir).catch(() => undefined);
      if (!info?.isDirectory()) return undefined;
      return {
        taskId,
        runId,
        contextId: `task-run:${taskId}:${runId}`,
        trigger: "manual",
        scheduledFor: "",
        status: "interrupted",
        error: { code: "RUN_RECORD_MISSING", message: "run.json is missing or unreadable" },
      };
    }
  };

  return {
    dir,
    folders,
    pathOf: (taskId) => taskFilePath(rootDir, id(taskId)),
    async list() {
      const tasks = [];
      for (const name of await folders()) {
        const text = await read(name).catch(() => undefined);
        if (text !== undefined) tasks.push({ id: name, text });
      }
      return tasks;
    },
    read,
    async write(taskId, text, writeOptions = {}) {
      if (writeOptions.create && (await read(taskId)) !== undefined) return false;
      await mkdir(taskDir(rootDir, id(taskId)), { recursive: true });
      await writeFileAtomic(taskFilePath(rootDir, id(taskId)), text);
      return true;
    },
    async remove(taskId) {
      const existed = (await read(taskId)) !== undefined;
      await rm(taskDir(rootDir, id(taskId)), { recursive: true, force: true });
      return existed;
    },
    async recordFire(fire) {
      const name = formatRunId(new Date(fire.scheduledFor));
      await mkdir(firesDir(fire.taskId), { recursive: true });
      try {
        await writeFile(join(firesDir(fire.taskId), name), `${JSON.stringify(fire)}\n`, { flag: "wx" });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
        throw error;
      }
      const names = (await listDir(firesDir(fire.taskId))).filter((entry) => runIdPattern.test(entry)).sort();
      for (const old of names.slice(0, Math.max(0, names.length - keptFires)))
        await rm(join(firesDir(fire.taskId), old), { force: true });
      return true;
    },
    async lastFires() {
      const latest: Record<string, string> = {};
      for (const name of await folders()) {
        const fired = (await listDir(firesDir(name))).filter((entry) => runIdPattern.test(entry)).sort();
        const last = fired.at(-1);
        if (last) {
          const fire = JSON.parse(await readFile(join(firesDir(name), last), "utf8")) as {
            scheduledFor: string;
          };
          latest[name] = fire.scheduledFor;
        }
      }
      return latest;
    },
    async saveRun(run) {
      const runDir = join(taskDir(rootDir, id(run.taskId)), run.runId);
      await mkdir(runDir, { recursive: true });
      const { dir: _local, ...stored } = run;
      await writeFileAtomic(join(runDir, "run.json"), `${JSON.stringify(stored, null, 2)}\n`);
    },
    async runs(taskId, last) {
      const runIds = (await listDir(taskDir(rootDir, id(taskId))))
        .filter((name) => runIdPattern.test(name))
        .sort()
        .reverse()
        .slice(0, last);
      const records: StoredTaskRun[] = [];
      for (const runId of runIds) {
        const record = await readRun(taskId, runId);
        if (record) records.push(record);
      }
      return records;
    },
    scheduler: createMemorySchedulerLease(),
  };
}
