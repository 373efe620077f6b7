import { type MemoryDocuments, type MemoryStore, memoryScopeKey } from "@downcity/core";
import type pg from "pg";
import { inTransaction } from "./in-transaction.js";

type Queryable = Pick<pg.Pool, "query">;

interface MemoryRow {
  scope: string;
  primary_text: string;
  meta: string | null;
}

const documentsOf = (row: MemoryRow | undefined): MemoryDocuments => ({
  primary: row?.primary_text ?? "",
  ...(row && row.meta !== null ? { meta: row.meta } : {}),
});

async function readScope(client: Queryable, key: string): Promise<MemoryDocuments> {
  const { rows } = await client.query<MemoryRow>(
    "SELECT scope, primary_text, meta FROM downcity_memory WHERE scope = $1",
    [key],
  );
  return documentsOf(rows[0]);
}

type Waiter = { resolve(documents: MemoryDocuments): void; reject(error: unknown): void };

/**
 * Reads of scopes asked for in the same tick (a prompt reads the profile's and the context's
 * memory at once) go to the server as one statement: a round trip costs the worker more CPU than
 * the rows.
 */
function createScopeReader(pool: Queryable): (key: string) => Promise<MemoryDocuments> {
  let waiting: Map<string, Waiter[]> | undefined;
  const flush = async (batch: Map<string, Waiter[]>) => {
    try {
      const { rows } = await pool.query<MemoryRow>(
        "SELECT scope, primary_text, meta FROM downcity_memory WHERE scope = ANY($1)",
        [[...batch.keys()]],
      );
      const byScope = new Map(rows.map((row) => [row.scope, row]));
      for (const [key, waiters] of batch)
        for (const waiter of waiters) waiter.resolve(documentsOf(byScope.get(key)));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  };
  return (key) =>
    new Promise((resolve, reject) => {
      if (!waiting) {
        const batch = new Map<string, Waiter[]>();
        waiting = batch;
        queueMicrotask(() => {
          waiting = undefined;
          void flush(batch);
        });
      }
      waiting.set(key, [...(waiting.get(key) ?? []), { resolve, reject }]);
    });
}

/**
 * The memory store in `downcity_memory` (one row per scope: `Primary.md` and the meta document) and
 * `downcity_memory_backups`. A change runs in one transaction under an advisory lock of its scope,
 * so changes from several workers run one at a time and a failed one leaves nothing behind.
 */
export function createPostgresMemory(pool: pg.Pool): MemoryStore {
  const read = createScopeReader(pool);
  return {
    read: (scope) => read(memoryScopeKey(scope)),
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
