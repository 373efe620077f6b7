import { z } from "zod";

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
  /** The worker that made the call (absent in lines written before it was recorded, and by one worker alone). */
  workerId: z.string().optional(),
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

/**
 * The model calls of one agent (one record a call), so `downcity usage` sums every worker's calls:
 * appended as calls finish, read back filtered in the order they were made.
 */
export interface UsageStore {
  append(record: UsageRecord): Promise<void>;
  read(filter?: UsageFilter): Promise<UsageRecord[]>;
  /** Deletes the records of calls made before `before` (`usage.retainDays`); returns how many. Absent: the host prunes the driver's files. */
  prune?(before: Date): Promise<number>;
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
