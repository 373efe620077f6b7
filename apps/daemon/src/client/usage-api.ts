import type { UsageTotals } from "@downcity/core/usage";

/** Filters of `GET /api/usage` (all optional). */
export interface UsageQuery {
  /** Only calls since this time (ISO 8601). */
  since?: string;
  /** Only calls of this context id. */
  context?: string;
  /** Only calls of this run. */
  request?: string;
}

/** Calls and tokens of one worker (`unrecorded`: calls written before records named their worker). */
export interface WorkerUsage {
  workerId: string;
  calls: number;
  totalTokens: number;
}

/** Answer of `GET /api/usage`: the sums over every worker's calls (the store's usage), and per worker. */
export interface UsageResponse extends UsageTotals {
  byWorker: WorkerUsage[];
}
