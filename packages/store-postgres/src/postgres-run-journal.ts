import {
  DowncityError,
  isJournalRecord,
  type JournalRecord,
  newestRuns,
  type RunJournal,
  type RunSummary,
  runJournalVersion,
  summarizeRun,
} from "@downcity/core";
import type pg from "pg";

/**
 * The Postgres driver of the run journal: `downcity_runs` (one row per run) and
 * `downcity_run_records` (its records in append order). Each append is one transaction; appends
 * of one run from this worker are chained, so they commit in call order. `list` reports a run
 * without an end as `interrupted` once its worker is no longer live in the store.
 *
 * Appends are fenced by attempt: this worker writes a run under the attempt it began (`run`: 1) or
 * resumed it with (an `attempt` record); `downcity_runs.attempt` keeps the newest, and an append
 * under an older attempt is refused (`CONFLICT`), so a worker that lost its claim cannot add a late
 * step beside the new owner's.
 */
export function createPostgresRunJournal(pool: pg.Pool): RunJournal {
  const chains = new Map<string, Promise<unknown>>();
  // The attempt this worker writes each run under (known once it wrote the run's `run` or an `attempt` record).
  const attempts = new Map<string, number>();

  // One statement per append (no transaction round trips): the run row, when this is its first
  // record, and the records in order; a later append finds its run in the same statement.
  const insert = async (requestId: string, records: JournalRecord[]) => {
    const first = records[0];
    const rows = "SELECT $1, value FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY";
    const resumed = records.findLast((record) => record.type === "attempt");
    if (first?.type === "run") {
      // A retry may be in the run's first batch already.
      const attempt = resumed?.type === "attempt" ? resumed.attempt : 1;
      attempts.set(requestId, attempt);
      await pool.query(
        `WITH run AS (INSERT INTO downcity_runs (request_id, context_id, started_at, attempt) VALUES ($1, $3, $4, $5)
                      ON CONFLICT (request_id) DO NOTHING)
         INSERT INTO downcity_run_records (request_id, record) ${rows} ORDER BY ordinality`,
        [requestId, JSON.stringify(records), first.contextId, first.at, attempt],
      );
      return;
    }
    if (resumed?.type === "attempt") attempts.set(requestId, resumed.attempt);
    const attempt = attempts.get(requestId) ?? null;
    // A new attempt raises the run's attempt; any other append only checks it (a shared row lock,
    // so a concurrent raise waits for this append and the append never lands after the raise).
    const fence = resumed
      ? "UPDATE downcity_runs SET attempt = $3 WHERE request_id = $1 AND attempt <= $3 RETURNING 1"
      : "SELECT 1 FROM downcity_runs WHERE request_id = $1 AND ($3::int IS NULL OR attempt <= $3) FOR SHARE";
    const { rowCount } = await pool.query(
      `WITH fence AS (${fence})
       INSERT INTO downcity_run_records (request_id, record) ${rows}
       WHERE EXISTS (SELECT 1 FROM fence) ORDER BY ordinality`,
      [requestId, JSON.stringify(records), attempt],
    );
    if (rowCount !== 0) {
      if (records.some((record) => record.type === "end")) attempts.delete(requestId);
      return;
    }
    const { rows: runs } = await pool.query<{ attempt: number }>(
      "SELECT attempt FROM downcity_runs WHERE request_id = $1",
      [requestId],
    );
    if (!runs[0])
      throw new DowncityError("NOT_FOUND", `No run journal for ${requestId}; its first record must be "run"`);
    throw new DowncityError(
      "CONFLICT",
      `Run ${requestId} continues under attempt ${runs[0].attempt} (another worker took it over); this worker's write under attempt ${attempt} is refused.`,
    );
  };

  const readRecords = async (requestIds: string[]) => {
    const { rows } = await pool.query<{ request_id: string; record: unknown }>(
      "SELECT request_id, record FROM downcity_run_records WHERE request_id = ANY($1) ORDER BY seq",
      [requestIds],
    );
    const byRun = new Map<string, JournalRecord[]>();
    for (const row of rows) {
      if (!isJournalRecord(row.record)) continue;
      const list = byRun.get(row.request_id) ?? [];
      list.push(row.record);
      byRun.set(row.request_id, list);
    }
    return byRun;
  };

  // A worker is live while it holds a lease (the daemon keeps `worker:<id>`; a context or affinity
  // lease counts too) or a claim on a pending inbox event, by the database clock.
  const liveWorkers = async (workers: string[]) => {
    if (workers.length === 0) return new Set<string>();
    const { rows } = await pool.query<{ worker: string }>(
      `SELECT w AS worker FROM unnest($1::text[]) AS w
        WHERE EXISTS (SELECT 1 FROM downcity_lease WHERE owner = w AND until >= clock_timestamp())
           OR EXISTS (SELECT 1 FROM downcity_inbox
                       WHERE status = 'pending' AND claimed_by = w AND claimed_until >= clock_timestamp())`,
      [[...new Set(workers)]],
    );
    return new Set(rows.map((row) => row.worker));
  };

  return {
    append(requestId, records) {
      if (records.length === 0) return Promise.resolve();
      const stamped = records.map((record) => ({ v: runJournalVersion, ...record }) as JournalRecord);
      const previous = chains.get(requestId) ?? Promise.resolve();
      const next = previous.catch(() => {}).then(() => insert(requestId, stamped));
      chains.set(requestId, next);
      void next
        .finally(() => {
          if (chains.get(requestId) === next) chains.delete(requestId);
        })
        .catch(() => {});
      return next;
    },
    async read(requestId) {
      await chains.get(requestId)?.catch(() => {});
      const { rows } = await pool.query("SELECT 1 FROM downcity_runs WHERE request_id = $1", [requestId]);
      if (rows.length === 0) return undefined;
      return (await readRecords([requestId])).get(requestId) ?? [];
    },
    async list(filter = {}) {
      const { rows } = await pool.query<{ request_id: string }>(
        `SELECT request_id FROM downcity_runs
          WHERE ($1::text IS NULL OR context_id = $1) AND ($2::timestamptz IS NULL OR started_at >= $2)
          ORDER BY started_at DESC LIMIT $3`,
        // Status is known only from the records: read more rows than the limit when filtering by it.
        [filter.contextId ?? null, filter.since ?? null, filter.status ? 10_000 : (filter.limit ?? 100)],
      );
      const byRun = await readRecords(rows.map((row) => row.request_id));
      const summaries: RunSummary[] = [];
      for (const records of byRun.values()) {
        const summary = summarizeRun(records);
        if (summary) summaries.push(summary);
      }
      // An open run whose worker is no longer live in the store was cut off (the worker was killed
      // and nobody has resumed the run yet, or its event went on under another run): interrupted.
      const live = await liveWorkers(
        summaries.flatMap((run) => (run.status === "running" && run.worker ? [run.worker] : [])),
      );
      for (const summary of summaries)
        if (summary.status === "running" && summary.worker && !live.has(summary.worker))
          summary.status = "interrupted";
      return newestRuns(summaries, filter);
    },
    async prune(before) {
      const { rows } = await pool.query(
        "DELETE FROM downcity_runs WHERE started_at < $1 RETURNING request_id",
        [before],
      );
      return rows.length;
    },
    async close() {
      await Promise.allSettled([...chains.values()]);
    },
  };
}
