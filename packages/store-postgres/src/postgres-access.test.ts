import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

// Expiry by the database clock, which the shared conformance suite cannot move: a code's row is
// aged in place.
describe("postgres access: code expiry", () => {
  let database: { name: string; url: string };
  let store: PostgresStore;
  beforeEach(async () => {
    database = await createTestDatabase("access");
    store = await openPostgresStore({ url: database.url, poolSize: 2, pruneEveryMs: 0 });
  });
  afterEach(async () => {
    await store.close();
    await dropTestDatabase(database.name);
  });

  it("neither lists nor approves an expired code, and frees its sender for a new one", async () => {
    const access = store.access?.channel("telegram");
    const offered = await access?.offer({ userId: "u1", chatId: "c1" });
    expect(offered).toBeDefined();
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      await pool.query("UPDATE downcity_access_codes SET expires_at = now() - interval '1 second'");
    } finally {
      await pool.end();
    }
    expect((await access?.read())?.pending).toEqual([]);
    expect(await access?.approve(offered?.code ?? "")).toBeUndefined();
    const again = await access?.offer({ userId: "u1", chatId: "c1" });
    expect(again?.code).toBeDefined();
    expect(again?.code).not.toBe(offered?.code);
    expect((await access?.read())?.approved).toEqual([]);
  });
});
