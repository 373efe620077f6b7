import type pg from "pg";

/** Rows `prune` deleted, per table. */
export interface PruneResult {
  inbox: number;
  outbox: number;
  leases: number;
  /** Live-event batches kept for reconnect catch-up, older than 10 minutes. */
  events: number;
}

/**
 * Deletes what no worker needs any more: finished or dropped inbox rows and sent or dropped outbox
 * rows older than `keepMs` (the dedupe window: an event id or reply key is remembered that long),
 * leases that lapsed over an hour ago, and live-event batches older than 10 minutes (a listener
 * that reconnects catches up from them). Pending and dead rows are never touched.
 */
export async function pruneStore(pool: pg.Pool, options: { keepMs: number }): Promise<PruneResult> {
  const secs = options.keepMs / 1000;
  const inbox = await pool.query(
    `DELETE FROM downcity_inbox
     WHERE status IN ('done', 'dropped') AND accepted_at < now() - make_interval(secs => $1)`,
    [secs],
  );
  const outbox = await pool.query(
    `DELETE FROM downcity_outbox
     WHERE (status = 'sent' AND sent_at < now() - make_interval(secs => $1))
        OR (status = 'dropped' AND created_at < now() - make_interval(secs => $1))`,
    [secs],
  );
  const leases = await pool.query("DELETE FROM downcity_lease WHERE until < now() - interval '1 hour'");
  const events = await pool.query("DELETE FROM downcity_events WHERE at < now() - interval '10 minutes'");
  return {
    inbox: inbox.rowCount ?? 0,
    outbox: outbox.rowCount ?? 0,
    leases: leases.rowCount ?? 0,
    events: events.rowCount ?? 0,
  };
}
