import type { InboxEntry, InboxStore } from "@downcity/core";
import type pg from "pg";
import { createPostgresQueue } from "./postgres-queue.js";

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
  worker: string | null;
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
  ...(row.worker ? { worker: row.worker } : {}),
});

/** The channel a worker LISTENs on to hear of new claimable inbox events. */
export const inboxWakeChannel = "downcity_inbox";

/** The inbox in `downcity_inbox`: the shared keyed queue, plus accepting an event with dedupe. */
export function createPostgresInbox(pool: pg.Pool, options: { dedupeWindowMs: number }): InboxStore {
  const seconds = (ms: number) => ms / 1000;
  return {
    ...createPostgresQueue<InboxRow, InboxEntry>(pool, {
      name: "inbox",
      key: "id",
      group: "context_id",
      affinity: true,
      // The message body is dropped; the id stays for dedupe until the window passes.
      complete: { set: "status = 'done', message = '{}'", takesReceipt: false, wakesGroup: true },
      clearBody: "message = '{}'",
      stillPending: "it is still pending",
      toEntry,
    }),
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
  };
}
