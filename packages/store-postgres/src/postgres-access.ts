import {
  type AccessStore,
  type ChannelAccessStore,
  keptDeniedGroups,
  maxPendingCodes,
  newPendingPairing,
  normalizePairingCode,
  type PendingPairing,
} from "@downcity/core";
import type pg from "pg";
import { inTransaction } from "./in-transaction.js";
import { codeRow, groupRow, readAccess, userRow } from "./postgres-access-rows.js";

/** Serializes the code offers of one channel (the one-per-sender and three-waiting rules). */
const lockChannel = (client: pg.PoolClient, channel: string) =>
  client.query("SELECT pg_advisory_xact_lock(hashtext('downcity_access:' || $1))", [channel]);

function offer(pool: pg.Pool, channel: string): ChannelAccessStore["offer"] {
  return (user, held) =>
    inTransaction(pool, async (client) => {
      await lockChannel(client, channel);
      await client.query("DELETE FROM downcity_access_codes WHERE channel = $1 AND expires_at <= now()", [
        channel,
      ]);
      const { rows } = await client.query<{ user_id: string }>(
        "SELECT user_id FROM downcity_access_codes WHERE channel = $1",
        [channel],
      );
      if (rows.some((row) => row.user_id === user.userId) || rows.length >= maxPendingCodes) return undefined;
      const entry = newPendingPairing(user, new Date(), held);
      await client.query(
        `INSERT INTO downcity_access_codes (channel, code, user_id, chat_id, username, created_at, expires_at, held)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          channel,
          entry.code,
          entry.userId,
          entry.chatId,
          user.username ?? null,
          entry.createdAt,
          entry.expiresAt,
          held ?? null,
        ],
      );
      return entry;
    });
}

/** Takes the unexpired code out of the table (one worker wins a concurrent approve or deny). */
async function takeCode(
  client: pg.Pool | pg.PoolClient,
  channel: string,
  code: string,
): Promise<PendingPairing | undefined> {
  const { rows } = await client.query(
    `DELETE FROM downcity_access_codes WHERE channel = $1 AND code = $2 RETURNING *, expires_at > now() AS live`,
    [channel, normalizePairingCode(code)],
  );
  const row = rows[0];
  return row?.live ? codeRow(row) : undefined;
}

async function upsertUser(
  client: pg.Pool | pg.PoolClient,
  channel: string,
  user: { userId: string; username?: string },
  via: "pairing" | "cli",
) {
  const { rows } = await client.query(
    `INSERT INTO downcity_access_users (channel, user_id, username, approved_at, via) VALUES ($1, $2, $3, now(), $4)
     ON CONFLICT (channel, user_id) DO UPDATE SET username = EXCLUDED.username, approved_at = EXCLUDED.approved_at, via = EXCLUDED.via
     RETURNING *`,
    [channel, user.userId, user.username ?? null, via],
  );
  return userRow(rows[0]);
}

function groupChanges(pool: pg.Pool, channel: string) {
  return {
    allowGroup: (group: { chatId: string; title?: string }) =>
      inTransaction(pool, async (client) => {
        // The title a refused message gave is kept when the operator names none.
        const denied = await client.query(
          "DELETE FROM downcity_access_denied_groups WHERE channel = $1 AND chat_id = $2 RETURNING title",
          [channel, group.chatId],
        );
        const { rows } = await client.query(
          `INSERT INTO downcity_access_groups (channel, chat_id, title, allowed_at) VALUES ($1, $2, $3, now())
           ON CONFLICT (channel, chat_id) DO UPDATE SET title = EXCLUDED.title, allowed_at = EXCLUDED.allowed_at
           RETURNING *`,
          [channel, group.chatId, group.title ?? denied.rows[0]?.title ?? null],
        );
        return groupRow(rows[0]);
      }),
    revokeGroup: async (chatId: string) =>
      (
        await pool.query("DELETE FROM downcity_access_groups WHERE channel = $1 AND chat_id = $2", [
          channel,
          chatId,
        ])
      ).rowCount === 1,
    async noteDeniedGroup(group: { chatId: string; title?: string }) {
      await pool.query(
        `INSERT INTO downcity_access_denied_groups (channel, chat_id, title, last_seen, count) VALUES ($1, $2, $3, now(), 1)
         ON CONFLICT (channel, chat_id) DO UPDATE SET title = COALESCE(EXCLUDED.title, downcity_access_denied_groups.title),
           last_seen = EXCLUDED.last_seen, count = downcity_access_denied_groups.count + 1`,
        [channel, group.chatId, group.title ?? null],
      );
      await pool.query(
        `DELETE FROM downcity_access_denied_groups WHERE channel = $1 AND chat_id NOT IN (
           SELECT chat_id FROM downcity_access_denied_groups WHERE channel = $1 ORDER BY last_seen DESC LIMIT $2)`,
        [channel, keptDeniedGroups],
      );
    },
  };
}

/** The access store on Postgres: every worker reads and changes the same rows. */
export function createPostgresAccess(pool: pg.Pool): AccessStore {
  return {
    channel(channel) {
      return {
        read: () => readAccess(pool, channel),
        offer: offer(pool, channel),
        deny: (code) => takeCode(pool, channel, code),
        approve: (code) =>
          inTransaction(pool, async (client) => {
            const request = await takeCode(client, channel, code);
            if (!request) return undefined;
            return { ...(await upsertUser(client, channel, request, "pairing")), request };
          }),
        allow: (user) => upsertUser(pool, channel, user, "cli"),
        revoke: async (userId) =>
          (
            await pool.query("DELETE FROM downcity_access_users WHERE channel = $1 AND user_id = $2", [
              channel,
              userId,
            ])
          ).rowCount === 1,
        ...groupChanges(pool, channel),
      };
    },
  };
}
