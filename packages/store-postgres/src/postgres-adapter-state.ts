import { type AdapterStateStore, checkAdapterStateKey } from "@downcity/core";
import type pg from "pg";

/** Adapter state in `downcity_adapter_state`: one JSON value per channel and key, read fresh by the next poller. */
export function createPostgresAdapterState(pool: pg.Pool): AdapterStateStore {
  return {
    channel(name) {
      return {
        async get(key) {
          const { rows } = await pool.query<{ value: unknown }>(
            "SELECT value FROM downcity_adapter_state WHERE channel = $1 AND key = $2",
            [name, checkAdapterStateKey(key)],
          );
          return rows[0]?.value;
        },
        async set(key, value) {
          // Stored as JSON text cast to jsonb, so a bare string or null keeps its JSON meaning.
          await pool.query(
            `INSERT INTO downcity_adapter_state (channel, key, value, updated_at) VALUES ($1, $2, $3::jsonb, now())
             ON CONFLICT (channel, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
            [name, checkAdapterStateKey(key), JSON.stringify(value ?? null)],
          );
        },
      };
    },
  };
}
