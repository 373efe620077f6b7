import { type MemoryDocuments, type MemoryStore, memoryScopeKey } from "@downcity/core";
import type pg from "pg";
import { inTransaction } from "./in-transaction.js";

type Queryable = Pick<pg.Pool, "query">;

async function readScope(client: Queryable, key: string): Promise<MemoryDocuments> {
  const { rows } = await client.query<{ primary_text: string; meta: string | null }>(
    "SELECT primary_text, meta FROM downcity_memory WHERE scope = $1",
    [key],
  );
  const row = rows[0];
  return { primary: row?.primary_text ?? "", ...(row && row.meta !== null ? { meta: row.meta } : {}) };
}

/**
 * The memory store in `downcity_memory` (one row per scope: `Primary.md` and the meta document) and
 * `downcity_memory_backups`. A change runs in one transaction under an advisory lock of its scope,
 * so changes from several workers run one at a time and a failed one leaves nothing behind.
 */
export function createPostgresMemory(pool: pg.Pool): MemoryStore {
  return {
    read: (scope) => readScope(pool, memoryScopeKey(scope)),
    update(scope, change) {
      const key = memoryScopeKey(scope);
      return inTransaction(pool, async (client) => {
        await client.query("SELECT pg_advisory_xact_lock(hashtext('downcity_memory:' || $1))", [key]);
        const write = (column: "primary_text" | "meta", text: string) =>
          client.query(
            `INSERT INTO downcity_memory (scope, ${column}, updated_at) VALUES ($1, $2, now())
             ON CONFLICT (scope) DO UPDATE SET ${column} = EXCLUDED.${column}, updated_at = EXCLUDED.updated_at`,
            [key, text],
          );
        return change({
          read: () => readScope(client, key),
          writePrimary: async (text) => {
            await write("primary_text", text);
          },
          async writeMeta(text) {
            if (scope.kind === "profile") throw new Error("the profile has no meta document");
            await write("meta", text);
          },
          async backup(text, at) {
            const id = `Primary-${at.toISOString().replace(/[:.]/g, "-")}`;
            await client.query(
              `INSERT INTO downcity_memory_backups (scope, backup_id, created_at, text) VALUES ($1, $2, $3, $4)
               ON CONFLICT (scope, backup_id) DO UPDATE SET text = EXCLUDED.text`,
              [key, id, at.toISOString(), text],
            );
            return `${key}/${id}`;
          },
        });
      });
    },
    async contexts() {
      const { rows } = await pool.query<{ scope: string }>(
        "SELECT scope FROM downcity_memory WHERE scope LIKE 'context:%' ORDER BY scope",
      );
      return rows.map((row) => row.scope.slice("context:".length)).sort();
    },
  };
}
