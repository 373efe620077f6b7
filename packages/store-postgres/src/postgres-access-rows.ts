import type { AccessSnapshot, AllowedGroup, ApprovedUser, PendingPairing } from "@downcity/core";
import type pg from "pg";

// biome-ignore lint/suspicious/noExplicitAny: a pg row, its columns named by the access tables
type Row = any;

export function userRow(row: Row): ApprovedUser {
  return {
    userId: row.user_id,
    ...(row.username ? { username: row.username } : {}),
    approvedAt: row.approved_at.toISOString(),
    via: row.via,
  };
}

export function groupRow(row: Row): AllowedGroup {
  return {
    chatId: row.chat_id,
    ...(row.title ? { title: row.title } : {}),
    allowedAt: row.allowed_at.toISOString(),
  };
}

export function codeRow(row: Row): PendingPairing {
  return {
    code: row.code,
    userId: row.user_id,
    chatId: row.chat_id,
    ...(row.username ? { username: row.username } : {}),
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    ...(row.held ? { held: row.held } : {}),
  };
}

/** One channel's access state: its four tables read side by side. */
export async function readAccess(pool: pg.Pool, channel: string): Promise<AccessSnapshot> {
  const [users, codes, groups, denied] = await Promise.all([
    pool.query("SELECT * FROM downcity_access_users WHERE channel = $1 ORDER BY approved_at", [channel]),
    pool.query(
      "SELECT * FROM downcity_access_codes WHERE channel = $1 AND expires_at > now() ORDER BY created_at",
      [channel],
    ),
    pool.query("SELECT * FROM downcity_access_groups WHERE channel = $1 ORDER BY allowed_at", [channel]),
    pool.query("SELECT * FROM downcity_access_denied_groups WHERE channel = $1 ORDER BY last_seen", [
      channel,
    ]),
  ]);
  return {
    approved: users.rows.map(userRow),
    pending: codes.rows.map(codeRow),
    groups: groups.rows.map(groupRow),
    deniedGroups: denied.rows.map((row: Row) => ({
      chatId: row.chat_id,
      ...(row.title ? { title: row.title } : {}),
      lastSeen: row.last_seen.toISOString(),
      count: row.count,
    })),
  };
}
