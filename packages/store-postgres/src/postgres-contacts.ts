import type { Contact, ContactStore } from "@downcity/core";
import type pg from "pg";

interface ContactRow {
  id: string;
  channel: string;
  chat_id: string;
  chat_type: "direct" | "group";
  context_id: string;
  user_id: string;
  username: string | null;
  display_name: string | null;
  last_seen: Date;
}

const columns = "id, channel, chat_id, chat_type, context_id, user_id, username, display_name, last_seen";

const contactOf = (row: ContactRow): Contact => ({
  id: row.id,
  channel: row.channel,
  chatId: row.chat_id,
  chatType: row.chat_type,
  contextId: row.context_id,
  userId: row.user_id,
  ...(row.username !== null ? { username: row.username } : {}),
  ...(row.display_name !== null ? { displayName: row.display_name } : {}),
  lastSeen: row.last_seen.toISOString(),
});

/**
 * The contact store in `downcity_contacts`: one row per `<channel>:<userId>`, merged in one
 * statement (a known direct chat stays the address over a group; known names are kept).
 */
export function createPostgresContacts(pool: pg.Pool): ContactStore {
  return {
    async list() {
      const { rows } = await pool.query<ContactRow>(`SELECT ${columns} FROM downcity_contacts ORDER BY seq`);
      return rows.map(contactOf);
    },
    async get(id) {
      const { rows } = await pool.query<ContactRow>(
        `SELECT ${columns} FROM downcity_contacts WHERE id = $1`,
        [id],
      );
      return rows[0] && contactOf(rows[0]);
    },
    async byUsername(username) {
      const { rows } = await pool.query<ContactRow>(
        `SELECT ${columns} FROM downcity_contacts WHERE lower(username) = lower($1) ORDER BY seq`,
        [username],
      );
      return rows.map(contactOf);
    },
    async seen(input) {
      // The address moves unless a direct chat is known and the new sighting is in a group.
      await pool.query(
        `INSERT INTO downcity_contacts AS known (${columns})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (id) DO UPDATE SET
           chat_id = CASE WHEN known.chat_type = 'direct' AND EXCLUDED.chat_type = 'group' THEN known.chat_id ELSE EXCLUDED.chat_id END,
           context_id = CASE WHEN known.chat_type = 'direct' AND EXCLUDED.chat_type = 'group' THEN known.context_id ELSE EXCLUDED.context_id END,
           chat_type = CASE WHEN known.chat_type = 'direct' AND EXCLUDED.chat_type = 'group' THEN known.chat_type ELSE EXCLUDED.chat_type END,
           username = COALESCE(EXCLUDED.username, known.username),
           display_name = COALESCE(EXCLUDED.display_name, known.display_name),
           last_seen = EXCLUDED.last_seen`,
        [
          `${input.channel}:${input.userId}`,
          input.channel,
          input.chatId,
          input.chatType,
          input.contextId,
          input.userId,
          input.username ?? null,
          input.displayName ?? null,
          input.lastSeen,
        ],
      );
    },
  };
}
