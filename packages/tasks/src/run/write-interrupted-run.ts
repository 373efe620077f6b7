import { writeRunRecord } from "./run-task.js";
import type { TaskRunRecord } from "./task-run-record.js";

/** Saves the record as `interrupted` (best effort: a write failure is ignored); default: run.json. */
export async function writeInterruptedRun(
  record: TaskRunRecord,
  endedAt: string,
  message: string,
  saveRun: (record: TaskRunRecord) => Promise<void> = writeRunRecord,
): Promise<void> {
  await saveRun({
    ...record,
    status: "interrupted",
    endedAt,
    error: { code: "RUN_INTERRUPTED", message },
  }).catch(() => undefined);
}
