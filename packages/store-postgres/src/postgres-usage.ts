import type { UsageRecord, UsageStore } from "@downcity/core";
import type pg from "pg";

/** Options of `createPostgresUsage`. */
export interface PostgresUsageOptions {
  /**
   * How long an appended call waits for others to share its `INSERT` (default 250 ms). The
   * daemon appends usage without waiting for it, so a run never waits this long; a round trip
   * costs the worker more CPU than the rows, and at a few events a second several calls share one.
   */
  batchMs?: number;
  /** A batch this large is written at once (default 100). */
  maxBatch?: number;
}

type Pending = { record: UsageRecord; resolve(): void; reject(error: unknown): void };

/** The usage store, plus `flush`: writes what waits now (the store's `close` calls it). */
export type PostgresUsage = UsageStore & {
  prune(before: Date): Promise<number>;
  flush(): Promise<void>;
};

/**
 * The usage store in `downcity_usage`: every worker's model calls, one row each (the record as
 * JSON beside the columns it is filtered by), read back in the order they were made; `prune`
 * deletes calls older than the daemon's `usage.retainDays`. Appends are written in batches: an
 * append resolves once its row is stored, at most `batchMs` after it was made; this worker's
 * `read` and `prune` write what waits first, so they see every call appended before them, and
 * other workers see a call within `batchMs` of its append.
 */
export function createPostgresUsage(pool: pg.Pool, options: PostgresUsageOptions = {}): PostgresUsage {
  const batchMs = options.batchMs ?? 250;
  const maxBatch = Math.max(1, options.maxBatch ?? 100);
  let waiting: Pending[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const write = async (batch: Pending[]) => {
    const values = batch
      .map(
        (_, index) =>
          `($${index * 5 + 1}, $${index * 5 + 2}, $${index * 5 + 3}, $${index * 5 + 4}, $${index * 5 + 5})`,
      )
      .join(", ");
    try {
      // One statement: a row's `seq` follows the order of the values, so calls keep their order.
      await pool.query(
        `INSERT INTO downcity_usage (at, context_id, request_id, worker_id, record) VALUES ${values}`,
        batch.flatMap(({ record }) => [
          record.at,
          record.contextId,
          record.requestId,
          record.workerId ?? null,
          JSON.stringify(record),
        ]),
      );
      for (const pending of batch) pending.resolve();
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    }
  };
  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    // Batches are written one after another, so an earlier call is never stored after a later one.
    if (batch.length > 0) writing = writing.then(() => write(batch));
    return writing;
  };

  return {
    append(record) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ record, resolve, reject });
        if (waiting.length >= maxBatch) void flush();
        else if (!timer) {
          timer = setTimeout(() => void flush(), batchMs);
          timer.unref();
        }
      });
    },
    async read(filter = {}) {
      await flush();
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
      await flush();
      const { rowCount } = await pool.query("DELETE FROM downcity_usage WHERE at < $1", [
        before.toISOString(),
      ]);
      return rowCount ?? 0;
    },
    flush,
  };
}
