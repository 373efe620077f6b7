import { readFile } from "node:fs/promises";
import type { JournalRecord } from "@downcity/core";

/** The records of a run journal file (`.downcity/runs/<date>/<requestId>.jsonl` or a copy of one). */
export async function readJournalFile(path: string): Promise<JournalRecord[]> {
  const { isJournalRecord } = await import("@downcity/core");
  const records: JournalRecord[] = [];
  for (const line of (await readFile(path, "utf8")).split("\n")) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isJournalRecord(value)) records.push(value);
    } catch {
      // A line torn by a crash: the record it held was never acknowledged.
    }
  }
  return records;
}
