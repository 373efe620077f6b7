import { randomUUID } from "node:crypto";
import type { CancelledRun, CancelRequest, CancelRequestTarget, RunCancelStore } from "@downcity/core";
import type pg from "pg";

interface CancelRow {
  id: string;
  context_id: string | null;
  request_id: string | null;
  requested_by: string;
  requested_at: Date;
  answered_by: string | null;
  cancelled: CancelledRun[] | null;
  age_ms: number;
  held?: boolean;
}

// A request's age on the server's clock: workers compare it with their own "now" (no clock skew).
const ageMs = (table: string) =>
  `EXTRACT(EPOCH FROM clock_timestamp() - ${table}.requested_at)::float8 * 1000 AS age_ms`;

// The worker (other than the requester) whose claim on the target's context is live now.
const holderOf = (contextParam: string, requestParam: string, requesterParam: string) =>
  `(SELECT i.claimed_by FROM downcity_inbox i
    WHERE i.status = 'pending' AND i.claimed_by IS NOT NULL AND i.claimed_by <> ${requesterParam}
      AND i.claimed_until >= clock_timestamp()
      AND i.context_id = COALESCE(${contextParam},
            (SELECT r.context_id FROM downcity_runs r WHERE r.request_id = ${requestParam}))
    LIMIT 1)`;

const toRequest = (row: CancelRow): CancelRequest => ({
  id: row.id,
  target: row.context_id !== null ? { contextId: row.context_id } : { requestId: String(row.request_id) },
  requestedBy: row.requested_by,
  requestedAt: row.requested_at.toISOString(),
  ageMs: Math.max(0, Math.round(row.age_ms)),
  ...(row.answered_by !== null ? { answeredBy: row.answered_by } : {}),
  ...(row.cancelled !== null ? { cancelled: row.cancelled } : {}),
  held: row.held === true,
});

/**
 * Cancel requests between workers in `downcity_run_cancels` (migration 9): the requester inserts a
 * row and learns which worker holds the context; the running worker answers it (or the requester,
 * closing it). Ages are measured on the server's clock. Requests older than an hour are deleted as
 * new ones come in.
 */
export function createPostgresRunCancels(pool: pg.Pool): RunCancelStore {
  return {
    async request(target: CancelRequestTarget, by) {
      const id = randomUUID();
      const { rows } = await pool.query<{ holder: string | null }>(
        `WITH inserted AS (
           INSERT INTO downcity_run_cancels (id, context_id, request_id, requested_by) VALUES ($1, $2, $3, $4)),
         pruned AS (DELETE FROM downcity_run_cancels WHERE requested_at < clock_timestamp() - interval '1 hour')
         SELECT ${holderOf("$2::text", "$3::text", "$4::text")} AS holder`,
        [id, target.contextId ?? null, target.requestId ?? null, by],
      );
      const holder = rows[0]?.holder;
      return { id, ...(holder ? { holder } : {}) };
    },
    async pending(running, { worker, maxAgeMs }) {
      const { rows } = await pool.query<CancelRow>(
        `SELECT c.*, ${ageMs("c")} FROM downcity_run_cancels c
         WHERE answered_by IS NULL AND requested_by <> $1
           AND requested_at > clock_timestamp() - make_interval(secs => $2)
           AND (context_id = ANY($3) OR request_id = ANY($4))
         ORDER BY requested_at`,
        [worker, maxAgeMs / 1000, [...running.contextIds], [...running.requestIds]],
      );
      return rows.map(toRequest);
    },
    async answer(id, by, cancelled) {
      await pool.query(
        "UPDATE downcity_run_cancels SET answered_by = $2, cancelled = $3 WHERE id = $1 AND answered_by IS NULL",
        [id, by, JSON.stringify(cancelled)],
      );
    },
    async get(id) {
      const { rows } = await pool.query<CancelRow>(
        `SELECT c.*, ${ageMs("c")}, ${holderOf("c.context_id", "c.request_id", "c.requested_by")} IS NOT NULL AS held
         FROM downcity_run_cancels c WHERE c.id = $1`,
        [id],
      );
      return rows[0] ? toRequest(rows[0]) : undefined;
    },
  };
}
