import { randomBytes } from "node:crypto";
import { type ContextHistory, DowncityError, type HistoryMessage, type HistoryStore } from "@downcity/core";
import type pg from "pg";
import { inTransaction } from "./in-transaction.js";

const isMessage = (value: unknown): value is HistoryMessage =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as HistoryMessage).id === "string" &&
  typeof (value as HistoryMessage).role === "string" &&
  Array.isArray((value as HistoryMessage).parts);

/** Throws INVALID_INPUT naming the first message without `id`, `role` and `parts`. */
function checkMessages(messages: readonly unknown[]): void {
  for (const [index, message] of messages.entries())
    if (!isMessage(message))
      throw new DowncityError("INVALID_INPUT", `messages[${index}] needs id, role and parts`, {
        field: `messages[${index}]`,
      });
}

/** Histories in `downcity_history`: one row per message, ordered by an identity column. */
export function createPostgresHistory(pool: pg.Pool): HistoryStore {
  const context = (contextId: string): ContextHistory => {
    const readMeta = async (client: pg.ClientBase = pool as unknown as pg.ClientBase) => {
      const { rows } = await client.query<{ meta: Record<string, unknown> }>(
        "SELECT meta FROM downcity_history_meta WHERE context_id = $1",
        [contextId],
      );
      return rows[0]?.meta ?? {};
    };
    // The meta row is the context's lock: compaction and meta updates take it, appends need none.
    const lockMeta = (client: pg.ClientBase) =>
      client
        .query("INSERT INTO downcity_history_meta (context_id) VALUES ($1) ON CONFLICT DO NOTHING", [
          contextId,
        ])
        .then(() =>
          client.query("SELECT 1 FROM downcity_history_meta WHERE context_id = $1 FOR UPDATE", [contextId]),
        );
    const readAll = async (client: pg.ClientBase = pool as unknown as pg.ClientBase) => {
      const { rows } = await client.query<{ message: HistoryMessage }>(
        "SELECT message FROM downcity_history WHERE context_id = $1 ORDER BY seq",
        [contextId],
      );
      return rows.map((row) => row.message);
    };
    return {
      async append(input) {
        const messages = Array.isArray(input) ? input : [input];
        if (messages.length === 0) return;
        checkMessages(messages);
        const values = messages
          .map((_, index) => `($1, $${index * 2 + 2}, $${index * 2 + 3}::jsonb)`)
          .join(", ");
        await pool.query(`INSERT INTO downcity_history (context_id, id, message) VALUES ${values}`, [
          contextId,
          ...messages.flatMap((message) => [message.id, JSON.stringify(message)]),
        ]);
      },
      async read(options = {}) {
        if (options.last === undefined) return readAll();
        if (options.last <= 0) return [];
        const { rows } = await pool.query<{ message: HistoryMessage }>(
          "SELECT message FROM (SELECT seq, message FROM downcity_history WHERE context_id = $1 ORDER BY seq DESC LIMIT $2) tail ORDER BY seq",
          [contextId, options.last],
        );
        return rows.map((row) => row.message);
      },
      async findUserMessages(messageIds, { last }) {
        // Filtered where the rows are: a replay check costs one small (usually empty) answer, not
        // the tail's messages parsed here.
        const { rows } = await pool.query<{ message: HistoryMessage }>(
          `SELECT message FROM (SELECT seq, message FROM downcity_history WHERE context_id = $1
                                ORDER BY seq DESC LIMIT $2) tail
           WHERE message->>'role' = 'user' AND message->'metadata'->>'messageId' = ANY($3) ORDER BY seq`,
          [contextId, last, messageIds],
        );
        return rows.map((row) => row.message);
      },
      async appendUnlessStored(messages, { last }) {
        if (messages.length === 0) return [];
        checkMessages(messages);
        const ids = messages.flatMap((message) => message.metadata?.messageId ?? []);
        // One statement: the look-back (as findUserMessages) and an insert that runs only when it
        // found nothing. The context's claim keeps other workers from appending meanwhile.
        const { rows } = await pool.query<{ message: HistoryMessage }>(
          `WITH found AS (
             SELECT seq, message FROM (SELECT seq, message FROM downcity_history WHERE context_id = $1
                                       ORDER BY seq DESC LIMIT $2) tail
              WHERE message->>'role' = 'user' AND message->'metadata'->>'messageId' = ANY($3)),
           written AS (
             INSERT INTO downcity_history (context_id, id, message)
             SELECT $1, value->>'id', value FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY
              WHERE NOT EXISTS (SELECT 1 FROM found) ORDER BY ordinality)
           SELECT message FROM found ORDER BY seq`,
          [contextId, last, ids, JSON.stringify(messages)],
        );
        return rows.map((row) => row.message);
      },
      async readArchive() {
        const { rows } = await pool.query<{ messages: HistoryMessage[] }>(
          "SELECT messages FROM downcity_history_archive WHERE context_id = $1 ORDER BY created_at, archive_id",
          [contextId],
        );
        return rows.flatMap((row) => row.messages);
      },
      meta: () => readMeta(),
      updateMeta: (update) =>
        inTransaction(pool, async (client) => {
          await lockMeta(client);
          const current = await readMeta(client);
          const next = (await update(structuredClone(current))) ?? current;
          await client.query("UPDATE downcity_history_meta SET meta = $2 WHERE context_id = $1", [
            contextId,
            JSON.stringify(next),
          ]);
          return next;
        }),
      async compact(options) {
        const keepLast = Math.max(0, options.keepLast);
        const all = await readAll();
        const older = all.length > keepLast ? all.slice(0, all.length - keepLast) : [];
        if (older.length === 0) return undefined;
        // Summarised outside any transaction: appends go on meanwhile and are kept.
        const summary = await options.summarize(older);
        return inTransaction(pool, async (client) => {
          await lockMeta(client);
          const olderIds = older.map((message) => message.id);
          const removed = await client.query<{ seq: string; message: HistoryMessage }>(
            "DELETE FROM downcity_history WHERE context_id = $1 AND id = ANY($2) RETURNING seq, message",
            [contextId, olderIds],
          );
          if (removed.rows.length === 0) return undefined;
          const sorted = removed.rows.sort((a, b) => Number(a.seq) - Number(b.seq));
          const createdAt = new Date();
          const archiveId = `${createdAt.toISOString().replace(/[:.]/g, "-")}-${randomBytes(3).toString("hex")}`;
          await client.query(
            "INSERT INTO downcity_history_archive (context_id, archive_id, created_at, reason, messages) VALUES ($1, $2, $3, $4, $5)",
            [
              contextId,
              archiveId,
              createdAt,
              options.reason ?? null,
              JSON.stringify(sorted.map((row) => row.message)),
            ],
          );
          const summaryMessage: HistoryMessage = {
            id: `summary-${archiveId}`,
            role: "assistant",
            parts: [{ type: "text", text: summary }],
            metadata: { createdAt: createdAt.toISOString(), kind: "summary", archiveId },
          };
          // The summary takes the last archived position: before everything kept, after nothing.
          await client.query(
            "INSERT INTO downcity_history (context_id, seq, id, message) OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4)",
            [contextId, sorted[sorted.length - 1]?.seq, summaryMessage.id, JSON.stringify(summaryMessage)],
          );
          const kept = await client.query<{ count: string }>(
            "SELECT count(*) FROM downcity_history WHERE context_id = $1",
            [contextId],
          );
          const meta = await readMeta(client);
          await client.query("UPDATE downcity_history_meta SET meta = $2 WHERE context_id = $1", [
            contextId,
            JSON.stringify({
              ...meta,
              lastArchiveId: archiveId,
              compaction: {
                keepLast,
                archivedCount: sorted.length,
                compactedAt: createdAt.toISOString(),
                ...(options.reason ? { reason: options.reason } : {}),
              },
            }),
          ]);
          return {
            archiveId,
            archivedCount: sorted.length,
            keptCount: Number(kept.rows[0]?.count ?? 1) - 1,
            summary,
          };
        });
      },
    };
  };
  return { context, close: async () => {} };
}
