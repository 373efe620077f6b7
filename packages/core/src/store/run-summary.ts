import {
  type JournalRecord,
  type JournalUsage,
  type RunListFilter,
  type RunSummary,
  runJournalVersion,
} from "./run-journal.js";

/** A record this reader understands: the current schema version, with a type and a time. */
export function isJournalRecord(value: unknown): value is JournalRecord {
  if (typeof value !== "object" || value === null) return false;
  const record = value as { v?: unknown; type?: unknown; at?: unknown };
  return record.v === runJournalVersion && typeof record.type === "string" && typeof record.at === "string";
}

/** The summary of a run from its records; undefined when they lack the `run` record. */
export function summarizeRun(records: readonly JournalRecord[]): RunSummary | undefined {
  const start = records.find((record) => record.type === "run");
  if (!start) return undefined;
  // An end before a later attempt closed an earlier attempt only (a restart marked it interrupted,
  // then the run was resumed): the run is running again until that attempt ends.
  const last = records.findLast((record) => record.type === "end" || record.type === "attempt");
  const end = last?.type === "end" ? last : undefined;
  const usage: JournalUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
  let steps = 0;
  let toolCalls = 0;
  let attempts = 1;
  // The worker of the latest attempt: the one that ran (or runs) the run's end.
  let worker = start.worker;
  for (const record of records) {
    if (record.type === "step") steps++;
    else if (record.type === "tool-start") toolCalls++;
    else if (record.type === "attempt") {
      attempts = Math.max(attempts, record.attempt);
      worker = record.worker ?? worker;
    } else if (record.type === "model-call" && record.response) {
      usage.inputTokens += record.response.usage.inputTokens;
      usage.outputTokens += record.response.usage.outputTokens;
      usage.cachedInputTokens += record.response.usage.cachedInputTokens;
      usage.totalTokens += record.response.usage.totalTokens;
    }
  }
  return {
    requestId: start.requestId,
    contextId: start.contextId,
    startedAt: start.at,
    ...(end ? { endedAt: end.at } : {}),
    status: end?.outcome ?? "running",
    attempts,
    steps,
    toolCalls,
    usage,
    ...(start.model ? { model: start.model } : {}),
    ...(worker ? { worker } : {}),
  };
}

/** Whether a run passes `filter` (everything but `limit`). */
export function matchesRunFilter(summary: RunSummary, filter: RunListFilter): boolean {
  if (filter.contextId && summary.contextId !== filter.contextId) return false;
  if (filter.status && summary.status !== filter.status) return false;
  if (filter.since && Date.parse(summary.startedAt) < filter.since.getTime()) return false;
  return true;
}

/** Newest first, at most `filter.limit` [100]. */
export function newestRuns(summaries: RunSummary[], filter: RunListFilter): RunSummary[] {
  return summaries
    .filter((summary) => matchesRunFilter(summary, filter))
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
    .slice(0, filter.limit ?? 100);
}
