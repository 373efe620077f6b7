import { appendFile, mkdir, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { downcityPaths } from "../paths/downcity-paths.js";

/** One model call as the usage log keeps it (one JSON line). */
export const usageRecordSchema = z.object({
  at: z.string(),
  contextId: z.string(),
  requestId: z.string(),
  step: z.number().int(),
  provider: z.string(),
  model: z.string(),
  inputTokens: z.number(),
  outputTokens: z.number(),
  cachedInputTokens: z.number(),
  totalTokens: z.number(),
  durationMs: z.number(),
  finishReason: z.string(),
  /** Why the model was called (absent in lines written before it was recorded: a run step). */
  purpose: z.enum(["step", "compaction", "memory", "other"]).optional(),
  /**
   * The call was cut off (an abort, a broken stream) before the provider reported its usage: the
   * tokens were spent, and the counts are estimated (4 characters a token) from the prompt and the
   * streamed output.
   */
  estimated: z.boolean().optional(),
});

/** One model call as the usage log keeps it. */
export type UsageRecord = z.output<typeof usageRecordSchema>;

/** Which records `read` returns: from a moment on, of one context, of one run. */
export interface UsageFilter {
  since?: Date;
  contextId?: string;
  requestId?: string;
}

/** Sums of usage records, overall and per model. */
export interface UsageTotals {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  totalTokens: number;
  durationMs: number;
  /** Calls whose counts are estimates (cut off before the provider reported usage). */
  estimatedCalls: number;
  /** Calls and tokens by purpose: run steps, compaction summaries, memory maintenance, other. */
  byPurpose: Array<{ purpose: string; calls: number; totalTokens: number; cachedInputTokens: number }>;
  byModel: Array<{
    provider: string;
    model: string;
    calls: number;
    inputTokens: number;
    outputTokens: number;
    cachedInputTokens: number;
    totalTokens: number;
  }>;
}

/** The daily usage files of a project: append a model call, read calls back. */
export interface UsageLog {
  readonly dir: string;
  append(record: UsageRecord): Promise<void>;
  read(filter?: UsageFilter): Promise<UsageRecord[]>;
}

const dayOf = (iso: string) => iso.slice(0, 10);

/** Opens the usage log of the project at `rootDir`: one JSON-lines file per UTC day. */
export function createUsageLog(options: { rootDir: string }): UsageLog {
  const dir = join(downcityPaths(options.rootDir).stateDir, "usage");
  // Appends run one after another so lines never interleave.
  let queue: Promise<void> = Promise.resolve();
  return {
    dir,
    append(record) {
      const line = `${JSON.stringify(usageRecordSchema.parse(record))}\n`;
      const write = queue.then(async () => {
        await mkdir(dir, { recursive: true });
        await appendFile(join(dir, `${dayOf(record.at)}.jsonl`), line);
      });
      queue = write.catch(() => {});
      return write;
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

/** Adds up usage records, overall and per provider and model. */
export function sumUsage(records: readonly UsageRecord[]): UsageTotals {
  const totals: UsageTotals = {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    totalTokens: 0,
    durationMs: 0,
    estimatedCalls: 0,
    byPurpose: [],
    byModel: [],
  };
  const purposes = new Map<string, UsageTotals["byPurpose"][number]>();
  const models = new Map<string, UsageTotals["byModel"][number]>();
  for (const record of records) {
    totals.calls++;
    totals.inputTokens += record.inputTokens;
    totals.outputTokens += record.outputTokens;
    totals.cachedInputTokens += record.cachedInputTokens;
    totals.totalTokens += record.totalTokens;
    totals.durationMs += record.durationMs;
    if (record.estimated) totals.estimatedCalls++;
    const purpose = record.purpose ?? "step";
    const byPurpose = purposes.get(purpose) ?? { purpose, calls: 0, totalTokens: 0, cachedInputTokens: 0 };
    byPurpose.calls++;
    byPurpose.totalTokens += record.totalTokens;
    byPurpose.cachedInputTokens += record.cachedInputTokens;
    purposes.set(purpose, byPurpose);
    const key = `${record.provider}\u0000${record.model}`;
    let entry = models.get(key);
    if (!entry) {
      entry = {
        provider: record.provider,
        model: record.model,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        totalTokens: 0,
      };
      models.set(key, entry);
    }
    entry.calls++;
    entry.inputTokens += record.inputTokens;
    entry.outputTokens += record.outputTokens;
    entry.cachedInputTokens += record.cachedInputTokens;
    entry.totalTokens += record.totalTokens;
  }
  totals.byPurpose = [...purposes.values()].sort((a, b) => b.totalTokens - a.totalTokens);
  totals.byModel = [...models.values()].sort((a, b) => b.totalTokens - a.totalTokens);
  return totals;
}
