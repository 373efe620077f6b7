import type { UsageRecord, UsageStore } from "@downcity/core";
import type pg from "pg";

/**
 * The usage store in `downcity_usage`: every worker's model calls, one row each (the record as
 * JSON beside the columns it is filtered by), read back in the order they were made; `prune`
 * deletes calls older than the daemon's `usage.retainDays`.
 */
export function createPostgresUsage(pool: pg.Pool): UsageStore {
  return {
    async append(record) {
      await pool.query(
        `INSERT INTO downcity_usage (at, context_id, request_id, worker_id, record)
         VALUES ($1, $2, $3, $4, $5)`,
        [record.at, record.contextId, record.requestId, record.workerId ?? null, JSON.stringify(record)],
      );
    },
    async read(filter = {}) {
      const conditions: string[] = [];
      const values: unknown[] = [];
      const where = (condition: string, value: unknown) => {
        values.push(value);
        conditions.push(`${condition} $${values.length}`);
      };
      if (filter.since) where("at >=", filter.since.toISOString());
      if (filter.contextId) where("context_id =", filter.contextId);
      if (filter.requestId) where("request_id =", filter.requestId);
      const { rows } = await pool.query<{ record: UsageRecord }>(
        `SELECT record FROM downcity_usage ${conditions.length ? `WHERE ${conditions.join(" AND ")}` : ""} ORDER BY at, seq`,
        values,
      );
      return rows.map((row) => row.record);
    },
    async prune(before) {
      const { rowCount } = await pool.query("DELETE FROM downcity_usage WHERE at < $1", [
        before.toISOString(),
      ]);
      return rowCount ?? 0;
    },
  };
}
