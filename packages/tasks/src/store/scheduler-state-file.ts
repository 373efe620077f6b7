import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@downcity/core";
import { taskRootDir } from "../definition/task-paths.js";

/** What the scheduler remembers per task across restarts (to catch up on missed fires). */
export interface TaskScheduleState {
  /** When the scheduler first saw the task (the catch-up baseline before any fire). */
  seenAt: string;
  /** The scheduled time of the last fire handled (run or skipped). */
  lastFireAt?: string;
}

/** `.downcity/task/.scheduler-state.json`: per-task schedule memory. */
export interface SchedulerStateFile {
  readonly path: string;
  read(): Promise<Record<string, TaskScheduleState>>;
  write(state: Record<string, TaskScheduleState>): Promise<void>;
}

/** Opens the scheduler's state file of a project. */
export function createSchedulerStateFile(rootDir: string): SchedulerStateFile {
  const path = join(taskRootDir(rootDir), ".scheduler-state.json");
  return {
    path,
    async read() {
      try {
        const parsed = JSON.parse(await readFile(path, "utf8")) as {
          tasks?: Record<string, TaskScheduleState>;
        };
        return parsed.tasks && typeof parsed.tasks === "object" ? parsed.tasks : {};
      } catch {
        return {};
      }
    },
    async write(state) {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, `${JSON.stringify({ version: 1, tasks: state }, null, 2)}\n`);
    },
  };
}
