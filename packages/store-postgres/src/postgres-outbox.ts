import { DowncityError, defaultLeaseMs, type OutboxEntry, type SharedOutboxStore } from "@downcity/core";
import type pg from "pg";

interface OutboxRow {
  key: string;
  channel: string;
  context_id: string;
  target: OutboxEntry["target"];
  text: string;
  created_at: Date;
  status: "pending" | "sent" | "dead" | "dropped";
  attempts: number;
  last_error: string | null;
}

const toEntry = (row: OutboxRow): OutboxEntry => ({
  key: row.key,
  channel: row.channel,
  contextId: row.context_id,
  target: row.target,
  text: row.text,
  createdAt: row.created_at.toISOString(),
  status: row.status === "dead" ? "dead" : "pending",
  attempts: row.attempts,
  ...(row.last_error !== null ? { lastError: row.last_error } : {}),
});

/** The channel a worker LISTENs on to hear of new sendable chunks. */
export const outboxWakeChannel = "downcity_outbox";

const notFound = (key: string) =>
  new DowncityError(
    "NOT_FOUND",
    `No outbox entry "${key}". List them with downcity outbox list (--dead for dead letters).`,
    {
      field: "key",
    },
  );

/** The outbox in `downcity_outbox`: chunks of one chat are claimed oldest first, one at a time. */
export function createPostgresOutbox(pool: pg.Pool): SharedOutboxStore {
  const seconds = (ms: number) => ms / 1000;
  // The status is a literal in the statement, so the planner picks its partial index.
  const list = async (status: "pending" | "dead") => {
    const { rows } = await pool.query<OutboxRow>(
      `SELECT * FROM downcity_outbox WHERE status = '${status}' ORDER BY seq`,
    );
    return rows.map(toEntry);
  };
  return {
    async record(input) {
      const chat = JSON.stringify([input.channel, input.target.chatId, input.target.threadId ?? ""]);
      const { rows } = await pool.query(
        // No wake-up: the recording worker sends its own replies; should it die first, the others'
        // poll finds the chunk. Waking every worker per chunk only made them race for it.
        `INSERT INTO downcity_outbox (key, channel, context_id, chat, target, text, created_at, status)
         VALUES ($1, $2, $3, $4, $5, $6, now(), 'pending') ON CONFLICT (key) DO NOTHING RETURNING key`,
        [input.key, input.channel, input.contextId, chat, JSON.stringify(input.target), input.text],
      );
      return rows.length > 0 ? "recorded" : "known";
    },
    async claim({ owner, leaseMs = defaultLeaseMs }) {
      const { rows } = await pool.query<OutboxRow>(
        `UPDATE downcity_outbox SET claimed_by = $1, claimed_until = clock_timestamp() + make_interval(secs => $2)
         WHERE key = (
           SELECT o.key FROM downcity_outbox o
           WHERE o.status = 'pending'
             AND (o.claimed_until IS NULL OR o.claimed_until < clock_timestamp())
             AND NOT EXISTS (SELECT 1 FROM downcity_outbox e
                             WHERE e.status = 'pending' AND e.chat = o.chat AND e.seq < o.seq)
           ORDER BY o.seq
           LIMIT 1
           FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, seconds(leaseMs)],
      );
      return rows[0] ? toEntry(rows[0]) : undefined;
    },
    async markSent(key, messageId) {
      await pool.query(
        // No wake-up either: the sender that finishes a chunk claims the chat's next one itself.
        `UPDATE downcity_outbox SET status = 'sent', sent_at = now(), message_id = $2, text = '',
           claimed_by = NULL, claimed_until = NULL WHERE key = $1`,
        [key, messageId ?? null],
      );
    },
    async wasSent(key) {
      const { rows } = await pool.query("SELECT 1 FROM downcity_outbox WHERE key = $1 AND status = 'sent'", [
        key,
      ]);
      return rows.length > 0;
    },
    async fail(key, error, maxAttempts, permanent = false, retryInMs = 0) {
      // A chunk that stays pending is held by nobody until the retry is due (the database clock),
      // so no worker claims it early and the delay survives this worker's crash.
      const { rows } = await pool.query<OutboxRow>(
        `WITH failed AS (
           UPDATE downcity_outbox SET attempts = attempts + 1, last_error = $2,
             status = CASE WHEN $4 OR attempts + 1 >= $3 THEN 'dead' ELSE 'pending' END,
             claimed_by = NULL,
             claimed_until = CASE WHEN $5::float8 > 0 AND NOT $4::boolean AND attempts + 1 < $3::integer
                                  THEN clock_timestamp() + make_interval(secs => $5::float8) END
           WHERE key = $1 AND status IN ('pending', 'dead') RETURNING *)
         SELECT failed.*, CASE WHEN failed.status = 'pending' AND failed.claimed_until IS NULL
                               THEN pg_notify('${outboxWakeChannel}', '') END AS woke
         FROM failed`,
        [key, error, maxAttempts, permanent, seconds(retryInMs)],
      );
      if (!rows[0]) throw notFound(key);
      return toEntry(rows[0]);
    },
    deadLetters: () => list("dead"),
    list: (listOptions) => list(listOptions?.dead ? "dead" : "pending"),
    async drop(key) {
      // The row stays, without its text, so a replayed run's `record` of the key is `known`;
      // a claim on it ends, and the chat's next chunk becomes claimable.
      const { rows } = await pool.query(
        `WITH dropped AS (UPDATE downcity_outbox SET status = 'dropped', text = '', claimed_by = NULL,
                            claimed_until = NULL
                          WHERE key = $1 AND status IN ('pending', 'dead') RETURNING key)
         SELECT key, pg_notify('${outboxWakeChannel}', '') FROM dropped`,
        [key],
      );
      if (rows.length === 0) throw notFound(key);
    },
    async retry(key) {
      const { rows } = await pool.query<OutboxRow>(
        `UPDATE downcity_outbox SET status = 'pending', attempts = 0, claimed_by = NULL, claimed_until = NULL
         WHERE key = $1 AND status = 'dead' RETURNING *`,
        [key],
      );
      if (rows[0]) {
        await pool.query(`SELECT pg_notify('${outboxWakeChannel}', '')`);
        return toEntry(rows[0]);
      }
      const { rows: existing } = await pool.query(
        "SELECT 1 FROM downcity_outbox WHERE key = $1 AND status = 'pending'",
        [key],
      );
      if (existing.length > 0)
        throw new DowncityError(
          "CONFLICT",
          `Outbox entry "${key}" is not a dead letter; it is still being sent.`,
          {
            field: "key",
          },
        );
      throw notFound(key);
    },
    close: async () => {},
  };
}
