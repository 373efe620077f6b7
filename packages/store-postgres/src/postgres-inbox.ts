import { DowncityError, defaultLeaseMs, type InboxEntry, type SharedInboxStore } from "@downcity/core";
import type pg from "pg";

interface InboxRow {
  id: string;
  channel: string;
  event_id: string;
  context_id: string;
  message: InboxEntry["message"];
  accepted_at: Date;
  status: InboxEntry["status"] | "dropped";
  attempts: number;
  last_error: string | null;
}

const toEntry = (row: InboxRow): InboxEntry => ({
  id: row.id,
  channel: row.channel,
  eventId: row.event_id,
  contextId: row.context_id,
  message: row.message,
  acceptedAt: row.accepted_at.toISOString(),
  // A dropped entry is finished as far as the runtime is concerned.
  status: row.status === "dropped" ? "done" : row.status,
  attempts: row.attempts,
  ...(row.last_error !== null ? { lastError: row.last_error } : {}),
});

/** The channel a worker LISTENs on to hear of new claimable inbox events. */
export const inboxWakeChannel = "downcity_inbox";

const notFound = (id: string) =>
  new DowncityError(
    "NOT_FOUND",
    `No inbox entry "${id}". List them with downcity inbox list (--dead for dead letters).`,
    {
      field: "id",
    },
  );

/** The inbox in `downcity_inbox`: claims are row updates picked with FOR UPDATE SKIP LOCKED. */
export function createPostgresInbox(pool: pg.Pool, options: { dedupeWindowMs: number }): SharedInboxStore {
  const seconds = (ms: number) => ms / 1000;
  // The status is a literal in the statement, so the planner picks its partial index.
  const list = async (status: "pending" | "dead") => {
    const { rows } = await pool.query<InboxRow>(
      `SELECT * FROM downcity_inbox WHERE status = '${status}' ORDER BY seq`,
    );
    return rows.map(toEntry);
  };
  return {
    async accept(input) {
      const id = `${input.channel}:${input.eventId}`;
      // One statement: a new id inserts; a finished id past the dedupe window is accepted again at the back.
      const { rows } = await pool.query<{ id: string }>(
        `WITH accepted AS (
           INSERT INTO downcity_inbox AS i (id, channel, event_id, context_id, message, accepted_at, status)
           VALUES ($1, $2, $3, $4, $5, now(), 'pending')
           ON CONFLICT (id) DO UPDATE SET seq = nextval('downcity_inbox_seq'), context_id = excluded.context_id,
             message = excluded.message, accepted_at = now(), status = 'pending', attempts = 0,
             last_error = NULL, claimed_by = NULL, claimed_until = NULL
           WHERE i.status IN ('done', 'dropped') AND i.accepted_at < now() - make_interval(secs => $6)
           RETURNING i.id)
         SELECT id, pg_notify('${inboxWakeChannel}', '') FROM accepted`,
        [
          id,
          input.channel,
          input.eventId,
          input.contextId,
          JSON.stringify(input.message),
          seconds(options.dedupeWindowMs),
        ],
      );
      return { result: rows.length > 0 ? "accepted" : "duplicate", id };
    },
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      // Only a context's oldest pending event qualifies, and only while nobody's claim on it is live.
      const { rows } = await pool.query<InboxRow>(
        `UPDATE downcity_inbox SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2)
         WHERE id = (
           SELECT i.id FROM downcity_inbox i
           WHERE i.status = 'pending'
             AND (i.claimed_until IS NULL OR i.claimed_until < clock_timestamp())
             AND NOT EXISTS (SELECT 1 FROM downcity_inbox e
                             WHERE e.status = 'pending' AND e.context_id = i.context_id AND e.seq < i.seq)
           ORDER BY i.seq
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, seconds(leaseMs)],
      );
      return rows[0] ? toEntry(rows[0]) : undefined;
    },
    async renew(id, { owner, leaseMs = defaultLeaseMs }) {
      const { rowCount } = await pool.query(
        `UPDATE downcity_inbox SET claimed_until = clock_timestamp() + make_interval(secs => $3)
         WHERE id = $1 AND claimed_by = $2 AND status = 'pending' AND claimed_until >= clock_timestamp()`,
        [id, owner, seconds(leaseMs)],
      );
      return rowCount === 1;
    },
    async release(id, owner) {
      await pool.query(
        `WITH released AS (UPDATE downcity_inbox SET claimed_by = NULL, claimed_until = NULL
                           WHERE id = $1 AND claimed_by = $2 RETURNING id)
         SELECT pg_notify('${inboxWakeChannel}', '') FROM released`,
        [id, owner],
      );
    },
    async complete(id) {
      // The message body is dropped; the id stays for dedupe until the window passes.
      await pool.query(
        // Other workers are woken only when the context has a next event: the finishing worker
        // looks for work itself, and a wake-up of every worker per event is what limits scaling out.
        `WITH done AS (UPDATE downcity_inbox SET status = 'done', message = '{}', claimed_by = NULL, claimed_until = NULL
                       WHERE id = $1 AND status IN ('pending', 'dead') RETURNING id, context_id)
         SELECT pg_notify('${inboxWakeChannel}', '') FROM done
         WHERE EXISTS (SELECT 1 FROM downcity_inbox n
                       WHERE n.status = 'pending' AND n.context_id = done.context_id AND n.id <> done.id)`,
        [id],
      );
    },
    async fail(id, error, maxAttempts) {
      const { rows } = await pool.query<InboxRow>(
        `UPDATE downcity_inbox SET attempts = attempts + 1, last_error = $2,
           status = CASE WHEN attempts + 1 >= $3 THEN 'dead' ELSE 'pending' END,
           claimed_by = NULL, claimed_until = NULL
         WHERE id = $1 AND status IN ('pending', 'dead') RETURNING *`,
        [id, error, maxAttempts],
      );
      if (!rows[0]) throw notFound(id);
      await pool.query(`SELECT pg_notify('${inboxWakeChannel}', '')`);
      return toEntry(rows[0]);
    },
    async get(id) {
      const { rows } = await pool.query<InboxRow>(
        "SELECT * FROM downcity_inbox WHERE id = $1 AND status IN ('pending', 'dead')",
        [id],
      );
      return rows[0] ? toEntry(rows[0]) : undefined;
    },
    deadLetters: () => list("dead"),
    list: (listOptions) => list(listOptions?.dead ? "dead" : "pending"),
    async drop(id) {
      // The row stays, without its body, so a redelivery within the dedupe window is a duplicate;
      // a claim on it ends, and the context's next event becomes claimable.
      const { rows } = await pool.query(
        `WITH dropped AS (UPDATE downcity_inbox SET status = 'dropped', message = '{}', claimed_by = NULL,
                            claimed_until = NULL
                          WHERE id = $1 AND status IN ('pending', 'dead') RETURNING id)
         SELECT id, pg_notify('${inboxWakeChannel}', '') FROM dropped`,
        [id],
      );
      if (rows.length === 0) throw notFound(id);
    },
    async retry(id) {
      const { rows } = await pool.query<InboxRow>(
        `UPDATE downcity_inbox SET status = 'pending', attempts = 0, claimed_by = NULL, claimed_until = NULL
         WHERE id = $1 AND status = 'dead' RETURNING *`,
        [id],
      );
      if (rows[0]) {
        await pool.query(`SELECT pg_notify('${inboxWakeChannel}', '')`);
        return toEntry(rows[0]);
      }
      const { rows: existing } = await pool.query(
        "SELECT 1 FROM downcity_inbox WHERE id = $1 AND status = 'pending'",
        [id],
      );
      if (existing.length > 0)
        throw new DowncityError(
          "CONFLICT",
          `Inbox entry "${id}" is not a dead letter; it is still pending.`,
          {
            field: "id",
          },
        );
      throw notFound(id);
    },
    close: async () => {},
  };
}
