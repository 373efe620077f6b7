import { writeRunRecord } from "./run-task.js";
import type { TaskRunRecord } from "./task-run-record.js";

/** Rewrites run.json as `interrupted` (best effort: a write failure is ignored). */
export async function writeInterruptedRun(
  record: TaskRunRecord,
  endedAt: string,
  message: string,
): Promise<void> {
  await writeRunRecord({
    ...record,
    status: "interrupted",
    endedAt,
    error: { code: "RUN_INTERRUPTED", message },
  }).catch(() => undefined);
}
