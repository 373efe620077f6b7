import type { HistoryMessage } from "@downcity/core";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { createPostgresHistory } from "./postgres-history.js";
import { openPostgresStore } from "./postgres-store.js";

const user = (id: string, messageId: string): HistoryMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: id }],
  metadata: { createdAt: "2026-11-26T00:00:00.000Z", messageId, requestId: "req-1" },
});

describe("postgres history: a run's trigger in one statement", () => {
  let database: { name: string; url: string };
  let pool: pg.Pool;
  beforeEach(async () => {
    database = await createTestDatabase("history_trigger");
    await (await openPostgresStore({ url: database.url, poolSize: 2, pruneEveryMs: 0 })).close();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  afterEach(async () => {
    await pool.end();
    await dropTestDatabase(database.name);
  });

  it("checks for a stored copy and appends in one round trip, in order, and writes nothing for a replay", async () => {
    const history = createPostgresHistory(pool).context("web:a");
    const sent: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
      sent.push(String(args[0]));
      return query(...args);
    };
    const batch = Array.from({ length: 12 }, (_, index) => user(`u${index}`, `evt-${index}`));
    expect(await history.appendUnlessStored?.(batch, { last: 200 })).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(
      await history.appendUnlessStored?.([user("r5", "evt-5"), user("n", "evt-new")], { last: 200 }),
    ).toEqual([user("u5", "evt-5")]);
    expect(sent).toHaveLength(2);
    expect((await history.read()).map((message) => message.id)).toEqual(batch.map((message) => message.id));
  });
});
