import type { UsageRecord } from "@downcity/core";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";
import { createPostgresUsage } from "./postgres-usage.js";

// What the usage conformance suite cannot see: calls appended together share one INSERT, and a
// batch waiting for its time is written before this worker reads and before the store closes.
const opened: PostgresStore[] = [];
const pools: pg.Pool[] = [];
const created: string[] = [];

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const pool of pools.splice(0)) await pool.end();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

const freshDatabase = async () => {
  const { name, url } = await createTestDatabase("usage");
  created.push(name);
  // Opening the store once creates the tables.
  await (await openPostgresStore({ url, poolSize: 2 })).close();
  return url;
};
/** A pool that counts the INSERTs into downcity_usage it sends. */
const countingPool = (url: string) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  const inserts = { count: 0 };
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
    if (String(args[0]).startsWith("INSERT INTO downcity_usage")) inserts.count++;
    return query(...args);
  };
  return { pool, inserts };
};
const call = (index: number, overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  at: new Date(Date.UTC(2026, 10, 26, 12, 0, 0, index)).toISOString(),
  contextId: "web:a",
  requestId: `r${index}`,
  step: 0,
  provider: "openai",
  model: "gpt",
  inputTokens: index,
  outputTokens: 1,
  cachedInputTokens: 0,
  totalTokens: index + 1,
  durationMs: 10,
  finishReason: "stop",
  ...overrides,
});

describe("usage appends in batches", () => {
  it("writes calls appended together in one INSERT, each resolved once stored, in order", async () => {
    const url = await freshDatabase();
    const { pool, inserts } = countingPool(url);
    const usage = createPostgresUsage(pool, { batchMs: 50 });
    const calls = [0, 1, 2, 3, 4].map((index) => call(index));
    await Promise.all(calls.map((record) => usage.append(record)));
    expect(inserts.count).toBe(1);
    const other = createPostgresUsage(countingPool(url).pool);
    expect(await other.read()).toEqual(calls);
    // A batch that reaches maxBatch is written without waiting for its time.
    const full = createPostgresUsage(pool, { batchMs: 60_000, maxBatch: 2 });
    await Promise.all([full.append(call(5)), full.append(call(6))]);
    expect(inserts.count).toBe(2);
  });

  it("writes what waits before this worker reads or prunes, so it sees its own calls", async () => {
    const url = await freshDatabase();
    const { pool, inserts } = countingPool(url);
    // A batch that would wait a minute: the read must not wait for it, nor miss it.
    const usage = createPostgresUsage(pool, { batchMs: 60_000 });
    const appended = usage.append(call(1));
    const started = Date.now();
    expect(await usage.read()).toEqual([call(1)]);
    await appended;
    expect(Date.now() - started).toBeLessThan(10_000);
    const old = usage.append(call(2, { at: "2020-01-01T00:00:00.000Z" }));
    expect(await usage.prune(new Date("2021-01-01T00:00:00.000Z"))).toBe(1);
    await old;
    expect(inserts.count).toBe(2);
  });

  it("rejects every append of a batch the server refused, and writes the next batch", async () => {
    const url = await freshDatabase();
    const usage = createPostgresUsage(countingPool(url).pool, { batchMs: 20 });
    // jsonb refuses a NUL character, so the whole batch fails.
    const refused = [usage.append(call(1, { model: "bad\u0000" })), usage.append(call(2))];
    for (const result of await Promise.allSettled(refused)) expect(result.status).toBe("rejected");
    await usage.append(call(3));
    expect(await usage.read()).toEqual([call(3)]);
  });

  it("writes the calls still waiting when the store closes", async () => {
    const url = await freshDatabase();
    const store = await openPostgresStore({ url, poolSize: 2 });
    const usage = store.usage;
    if (!usage) throw new Error("the PostgreSQL store has a usage store");
    const appended = usage.append(call(1));
    await store.close();
    await appended;
    const reopened = await openPostgresStore({ url, poolSize: 2 });
    opened.push(reopened);
    expect(await reopened.usage?.read()).toEqual([call(1)]);
  });
});
