import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { createPostgresAccess } from "./postgres-access.js";
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

describe("postgres access: a read is one statement", () => {
  let database: { name: string; url: string };
  let pool: pg.Pool;
  beforeEach(async () => {
    database = await createTestDatabase("access_read");
    await (await openPostgresStore({ url: database.url, poolSize: 2, pruneEveryMs: 0 })).close();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  afterEach(async () => {
    await pool.end();
    await dropTestDatabase(database.name);
  });

  it("reads the four tables in one round trip, with every field as the tables hold it", async () => {
    const access = createPostgresAccess(pool).channel("telegram");
    const approved = await access.allow({ userId: "u1", username: "ada" });
    const offered = await access.offer(
      { userId: "u2", chatId: "c2", username: "bob" },
      { eventId: "e1", messageId: "m1", text: "hi" },
    );
    const group = await access.allowGroup({ chatId: "g1", title: "Team" });
    await access.noteDeniedGroup({ chatId: "g2", title: "Other" });
    await access.noteDeniedGroup({ chatId: "g2", title: "Other" });
    const sent: string[] = [];
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args) => {
      sent.push(String(args[0]));
      return query(...args);
    };
    const snapshot = await access.read();
    expect(sent).toHaveLength(1);
    expect(snapshot.approved).toEqual([approved]);
    expect(snapshot.pending).toEqual([offered]);
    expect(snapshot.groups).toEqual([group]);
    expect(snapshot.deniedGroups).toEqual([
      { chatId: "g2", title: "Other", lastSeen: expect.stringMatching(/^\d{4}-.*\.\d{3}Z$/), count: 2 },
    ]);
  });
});
