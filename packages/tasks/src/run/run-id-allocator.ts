import { mkdir } from "node:fs/promises";
import { DowncityError } from "@downcity/core";
import type { TaskId } from "../definition/task-id.js";
import { formatRunId, taskDir, taskRunDir } from "../definition/task-paths.js";

/** Hands out run ids that grow per task and claims their folders, so two runs never share one. */
export interface RunIdAllocator {
  /** A run id for `at`, moved on by a millisecond if this task already used it. */
  next(taskId: TaskId, at: Date): string;
  /** Creates the run folder, moving the id on if a folder of that name exists (e.g. from before a restart). */
  claim(taskId: TaskId, runId: string, now: () => Date): Promise<string>;
}

/** Creates the run id allocator of a project root. */
export function createRunIdAllocator(rootDir: string): RunIdAllocator {
  const last = new Map<string, string>();
  const next = (taskId: TaskId, at: Date) => {
    let candidate = formatRunId(at);
    const previous = last.get(taskId);
    if (previous && candidate <= previous) {
      const previousTime = Date.parse(
        previous.replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, "$1:$2:$3.$4Z"),
      );
      candidate = formatRunId(new Date(previousTime + 1));
    }
    last.set(taskId, candidate);
    return candidate;
  };
  return {
    next,
    async claim(taskId, runId, now) {
      await mkdir(taskDir(rootDir, taskId), { recursive: true });
      let candidate = runId;
      for (let attempt = 0; attempt < 1000; attempt++) {
        try {
          await mkdir(taskRunDir(rootDir, taskId, candidate));
          return candidate;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
          candidate = next(taskId, now());
        }
      }
      throw new DowncityError("CONFLICT", `Could not claim a run folder for task ${taskId}`);
    },
  };
}
