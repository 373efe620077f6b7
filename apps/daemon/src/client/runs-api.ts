import type { JournalRecord, ReplyDelivery, RunSummary } from "@downcity/core";

/** Filters of `GET /api/runs` (all optional). */
export interface RunsListQuery {
  /** Only runs of this context id. */
  context?: string;
  /** Only runs that started at or after this time (ISO 8601). */
  since?: string;
  status?: RunSummary["status"];
  /** At most this many, newest first [100, at most 1000]. */
  limit?: number;
}

/** Answer of `GET /api/runs`: matching runs, newest first. */
export interface RunsListResponse {
  runs: RunSummary[];
}

/** Answer of `GET /api/runs/:requestId`: the run's summary (its header and end) and every record in order. */
export interface RunDetailResponse {
  summary: RunSummary;
  records: JournalRecord[];
  /**
   * Where each reply stands in the outbox, by its key: `sent`, `pending` (with the failed
   * `attempts` and `lastError` of a retried chunk), `dead` or `unknown` (no channel took it, or
   * sent longer ago than the outbox remembers). Absent when the daemon has no channels.
   */
  deliveries?: Record<string, ReplyDelivery>;
}
