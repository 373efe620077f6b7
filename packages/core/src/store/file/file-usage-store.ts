import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { downcityPaths } from "../../paths/downcity-paths.js";
import { type UsageRecord, type UsageStore, usageRecordSchema } from "../usage-store.js";
import { createGroupedAppend } from "./grouped-appends.js";

/** The usage store's file driver: `.downcity/usage/YYYY-MM-DD.jsonl`, one JSON line a call. */
export interface UsageLog extends UsageStore {
  readonly dir: string;
}

const dayOf = (iso: string) => iso.slice(0, 10);

/** Opens the usage log of the project at `rootDir` (the usage store's file driver): one JSON-lines file per UTC day. */
export function createUsageLog(options: { rootDir: string }): UsageLog {
  const dir = join(downcityPaths(options.rootDir).stateDir, "usage");
  // Lines never interleave, and calls that come while a write runs share the next one.
  const append = createGroupedAppend(dir);
  return {
    dir,
    append(record) {
      return append(`${dayOf(record.at)}.jsonl`, `${JSON.stringify(usageRecordSchema.parse(record))}\n`);
    },
    async read(filter = {}) {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw error;
      }
      const sinceDay = filter.since ? dayOf(filter.since.toISOString()) : undefined;
      const records: UsageRecord[] = [];
      for (const name of names.filter((entry) => /^\d{4}-\d{2}-\d{2}\.jsonl$/.test(entry)).sort()) {
        if (sinceDay && name.slice(0, 10) < sinceDay) continue;
        const text = await readFile(join(dir, name), "utf8");
        for (const line of text.split("\n")) {
          if (!line.trim()) continue;
          let parsed: ReturnType<typeof usageRecordSchema.safeParse>;
          try {
            parsed = usageRecordSchema.safeParse(JSON.parse(line));
          } catch {
            continue; // A torn last line of a crashed write.
          }
          if (!parsed.success) continue;
          const record = parsed.data;
          if (filter.since && Date.parse(record.at) < filter.since.getTime()) continue;
          if (filter.contextId && record.contextId !== filter.contextId) continue;
          if (filter.requestId && record.requestId !== filter.requestId) continue;
          records.push(record);
        }
      }
      return records;
    },
  };
}
