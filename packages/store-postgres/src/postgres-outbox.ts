import type { OutboxEntry, OutboxInput, OutboxStore } from "@downcity/core";
import type pg from "pg";
import { createPostgresQueue } from "./postgres-queue.js";

interface OutboxRow {
  key: string;
  channel: string;
  context_id: string;
  target: OutboxEntry["target"];
  text: string;
  attachments: OutboxEntry["attachments"] | null;
  actions: OutboxEntry["actions"] | null;
  created_at: Date;
  status: "pending" | "sent" | "dead" | "dropped";
  attempts: number;
  last_error: string | null;
  worker: string | null;
}

const toEntry = (row: OutboxRow): OutboxEntry => ({
  key: row.key,
  channel: row.channel,
  contextId: row.context_id,
  target: row.target,
  text: row.text,
  ...(row.attachments !== null ? { attachments: row.attachments } : {}),
  ...(row.actions !== null ? { actions: row.actions } : {}),
  createdAt: row.created_at.toISOString(),
  status: row.status === "dead" ? "dead" : "pending",
  attempts: row.attempts,
  ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  ...(row.worker ? { worker: row.worker } : {}),
});

// NULL when the chunk has none, so it comes back without the field, as the file outbox hands it back.
const jsonOrNull = (value: OutboxInput["attachments"] | OutboxInput["actions"]) =>
  value === undefined ? null : JSON.stringify(value);

// What a sent or dropped row no longer needs: only its key must stay known.
const clearBody = "text = '', attachments = NULL, actions = NULL";

/** The outbox in `downcity_outbox`: the shared keyed queue (one chat at a time), plus recording a chunk. */
export function createPostgresOutbox(pool: pg.Pool): OutboxStore {
  return {
    ...createPostgresQueue<OutboxRow, OutboxEntry>(pool, {
      name: "outbox",
      key: "key",
      group: "chat",
      complete: {
        // No wake-up: the sender that finishes a chunk claims the chat's next one itself.
        set: `status = 'sent', sent_at = now(), message_id = $2, ${clearBody}`,
        takesReceipt: true,
        wakesGroup: false,
      },
      clearBody,
      stillPending: "it is still being sent",
      toEntry,
    }),
    async record(input) {
      const chat = JSON.stringify([input.channel, input.target.chatId, input.target.threadId ?? ""]);
      const { rows } = await pool.query(
        // No wake-up: the recording worker sends its own replies; should it die first, the others'
        // poll finds the chunk. Waking every worker per chunk only made them race for it.
        // DO NOTHING on a known key: a resent chunk keeps the files and buttons it was first recorded with.
        `INSERT INTO downcity_outbox
           (key, channel, context_id, chat, target, text, attachments, actions, created_at, status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now(), 'pending') ON CONFLICT (key) DO NOTHING RETURNING key`,
        [
          input.key,
          input.channel,
          input.contextId,
          chat,
          JSON.stringify(input.target),
          input.text,
          jsonOrNull(input.attachments),
          jsonOrNull(input.actions),
        ],
      );
      return rows.length > 0 ? "recorded" : "known";
    },
    async wasSent(key) {
      const { rows } = await pool.query("SELECT 1 FROM downcity_outbox WHERE key = $1 AND status = 'sent'", [
        key,
      ]);
      return rows.length > 0;
    },
  };
}
