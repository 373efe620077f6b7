import type { AccessSnapshot, AllowedGroup, ApprovedUser, PendingPairing } from "@downcity/core";
import type pg from "pg";

// biome-ignore lint/suspicious/noExplicitAny: a pg row, its columns named by the access tables
type Row = any;

/** A timestamp column as ISO text: a Date from a column, or the text `json_agg` made of it. */
const iso = (value: Date | string): string => new Date(value).toISOString();

export function userRow(row: Row): ApprovedUser {
  return {
    userId: row.user_id,
    ...(row.username ? { username: row.username } : {}),
    approvedAt: iso(row.approved_at),
    via: row.via,
  };
}

export function groupRow(row: Row): AllowedGroup {
  return {
    chatId: row.chat_id,
    ...(row.title ? { title: row.title } : {}),
    allowedAt: iso(row.allowed_at),
  };
}

export function codeRow(row: Row): PendingPairing {
  return {
    code: row.code,
    userId: row.user_id,
    chatId: row.chat_id,
    ...(row.username ? { username: row.username } : {}),
    createdAt: iso(row.created_at),
    expiresAt: iso(row.expires_at),
    ...(row.held ? { held: row.held } : {}),
  };
}

// The four tables as JSON arrays in one row: a refresh is one round trip, not four. Timestamps come
// back as JSON text, so the row readers take either a Date or the text.
const accessQuery = `SELECT
  (SELECT coalesce(json_agg(u ORDER BY u.approved_at), '[]') FROM downcity_access_users u WHERE u.channel = $1) AS users,
  (SELECT coalesce(json_agg(c ORDER BY c.created_at), '[]') FROM downcity_access_codes c
    WHERE c.channel = $1 AND c.expires_at > now()) AS codes,
  (SELECT coalesce(json_agg(g ORDER BY g.allowed_at), '[]') FROM downcity_access_groups g WHERE g.channel = $1) AS groups,
  (SELECT coalesce(json_agg(d ORDER BY d.last_seen), '[]') FROM downcity_access_denied_groups d WHERE d.channel = $1) AS denied`;

/** One channel's access state: its four tables read in one statement. */
export async function readAccess(pool: pg.Pool, channel: string): Promise<AccessSnapshot> {
  const { rows } = await pool.query<{ users: Row[]; codes: Row[]; groups: Row[]; denied: Row[] }>(
    accessQuery,
    [channel],
  );
  const { users, codes, groups, denied } = rows[0] as {
    users: Row[];
    codes: Row[];
    groups: Row[];
    denied: Row[];
  };
  return {
    approved: users.map(userRow),
    pending: codes.map(codeRow),
    groups: groups.map(groupRow),
    deniedGroups: denied.map((row: Row) => ({
      chatId: row.chat_id,
      ...(row.title ? { title: row.title } : {}),
      lastSeen: iso(row.last_seen),
      count: row.count,
    })),
  };
}
