import { type ContextLease, defaultLeaseMs } from "@downcity/core";
import type pg from "pg";

/** Context leases in `downcity_lease`, timed by the database clock so workers' clocks never disagree. */
export function createPostgresLease(pool: pg.Pool): ContextLease {
  const seconds = (ms: number) => ms / 1000;
  return {
    async acquire(contextId, owner, leaseMs = defaultLeaseMs) {
      const { rowCount } = await pool.query(
        `INSERT INTO downcity_lease AS l (context_id, owner, until)
         VALUES ($1, $2, clock_timestamp() + make_interval(secs => $3))
         ON CONFLICT (context_id) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE l.owner = excluded.owner OR l.until < clock_timestamp()`,
        [contextId, owner, seconds(leaseMs)],
      );
      return rowCount === 1;
    },
    async renew(contextId, owner, leaseMs = defaultLeaseMs) {
      const { rowCount } = await pool.query(
        `UPDATE downcity_lease SET until = clock_timestamp() + make_interval(secs => $3)
         WHERE context_id = $1 AND owner = $2 AND until >= clock_timestamp()`,
        [contextId, owner, seconds(leaseMs)],
      );
      return rowCount === 1;
    },
    async release(contextId, owner) {
      await pool.query("DELETE FROM downcity_lease WHERE context_id = $1 AND owner = $2", [contextId, owner]);
    },
    async holder(contextId) {
      const { rows } = await pool.query<{ owner: string }>(
        "SELECT owner FROM downcity_lease WHERE context_id = $1 AND until >= clock_timestamp()",
        [contextId],
      );
      return rows[0]?.owner;
    },
    close: async () => {},
  };
}
