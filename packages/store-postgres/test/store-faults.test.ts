import type { DowncityError } from "@downcity/core";
import { until } from "@downcity/testkit";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from "../src/postgres-store.js";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";
import { asAdmin, createTestDatabase, dropTestDatabase } from "./test-databases.js";

// One store's faults against the real server: a session terminated mid-transaction, a statement
// timeout, a full pool, a server out of connections, and a server restart under the wake-up
// listener and a poller lock (on a server of its own).
const opened: PostgresStore[] = [];
const created: string[] = [];
const open = async (options: Partial<PostgresStoreOptions> & { url?: string } = {}) => {
  let url = options.url;
  if (!url) {
    const database = await createTestDatabase("faults");
    created.push(database.name);
    url = database.url;
  }
  const store = await openPostgresStore({ poolSize: 2, ...options, url });
  opened.push(store);
  return { store, url };
};
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as DowncityError,
  );
const event = (eventId: string, contextId = "web:a") => ({
  channel: "web",
  eventId,
  contextId,
  message: { text: eventId },
});

/** An admin session on `url` that holds `lockSql` in an open transaction until `release()`. */
async function holdLock(url: string, lockSql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("BEGIN");
  await client.query(lockSql);
  return {
    async release() {
      await client.query("ROLLBACK");
      await client.end();
    },
  };
}

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

describe("a session terminated mid-transaction", () => {
  it("fails that operation with STORE_UNAVAILABLE, commits none of it, and the store goes on", async () => {
    const { store, url } = await open();
    const history = store.history.context("web:a");
    await history.updateMeta(() => ({ round: 1 }));
    const failed = await errorOf(
      history.updateMeta(async (meta) => {
        // Inside the transaction (the meta row is locked): end this worker's session from outside.
        await asAdmin((admin) =>
          admin.query(
            `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE application_name = $1 AND datname = $2 AND state = 'idle in transaction'`,
            [`downcity:${process.pid}`, new URL(url).pathname.slice(1)],
          ),
        );
        return { ...meta, round: 2 };
      }),
    );
    expect(failed?.code).toBe("STORE_UNAVAILABLE");
    expect(failed?.message).toMatch(/PostgreSQL is unreachable or restarting.*store\.url/);
    expect(await history.meta()).toEqual({ round: 1 });
    expect(await history.updateMeta((meta) => ({ ...meta, round: 3 }))).toEqual({ round: 3 });
    await store.inbox.accept(event("after"));
    expect((await store.inbox.claim({ owner: "w" }))?.eventId).toBe("after");
  });
});

describe("sessions terminated under load", () => {
  it("fail the queries they ran with STORE_UNAVAILABLE, idle ones are replaced, and nothing is uncaught", async () => {
    const { store, url } = await open({ poolSize: 4, statementTimeoutMs: 60_000 });
    await store.inbox.accept(event("e1"));
    const database = new URL(url).pathname.slice(1);
    const terminate = () =>
      asAdmin((admin) =>
        admin.query(
          "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = $2",
          [`downcity:${process.pid}`, database],
        ),
      );
    for (let round = 0; round < 3; round++) {
      const lock = await holdLock(url, "LOCK TABLE downcity_inbox IN ACCESS EXCLUSIVE MODE");
      // Queries under way (blocked on the lock) and the idle rest of the pool, all terminated at once.
      const running = [1, 2, 3].map((n) => errorOf(store.inbox.claim({ owner: `w${n}` })));
      await until(
        () =>
          asAdmin(async (admin) => {
            const { rows } = await admin.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
              [`downcity:${process.pid}`],
            );
            return rows[0].n >= 3;
          }),
        "three claims waiting on the lock",
      );
      await terminate();
      const failures = await Promise.all(running);
      await lock.release();
      expect(failures.map((failure) => failure?.code)).toEqual(Array(3).fill("STORE_UNAVAILABLE"));
    }
    await terminate();
    expect((await store.inbox.claim({ owner: "after" }))?.eventId).toBe("e1");
  });
});

describe("limits", () => {
  it("cancels a statement stuck past statementTimeoutMs with an error naming it, then works again", async () => {
    const { store, url } = await open({ statementTimeoutMs: 300 });
    await store.inbox.accept(event("e1"));
    const lock = await holdLock(url, "LOCK TABLE downcity_inbox IN ACCESS EXCLUSIVE MODE");
    const started = Date.now();
    const failed = await errorOf(store.inbox.claim({ owner: "w" }));
    const tookMs = Date.now() - started;
    await lock.release();
    expect(failed?.code).toBe("STORE_UNAVAILABLE");
    expect(failed?.field).toBe("store.statementTimeoutMs");
    expect(failed?.message).toContain("store.statementTimeoutMs (300 ms)");
    expect(tookMs).toBeGreaterThanOrEqual(250);
    expect((await store.inbox.claim({ owner: "w" }))?.eventId).toBe("e1");
  });

  it("tells a full pool apart: a waiter gives up after connectTimeoutMs naming store.poolSize", async () => {
    const { store, url } = await open({ poolSize: 2, connectTimeoutMs: 300, statementTimeoutMs: 60_000 });
    await store.inbox.accept(event("e1"));
    const lock = await holdLock(url, "LOCK TABLE downcity_inbox IN ACCESS EXCLUSIVE MODE");
    // Both connections wait on the lock; the third operation finds none free.
    const blocked = [store.inbox.claim({ owner: "a" }), store.inbox.claim({ owner: "b" })];
    const failed = await errorOf(store.history.context("web:a").read());
    await lock.release();
    const claims = await Promise.all(blocked);
    expect(failed?.code).toBe("STORE_UNAVAILABLE");
    expect(failed?.field).toBe("store.poolSize");
    expect(failed?.message).toContain("store.poolSize (2)");
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.history.context("web:a").read()).toEqual([]);
  });

  it("names poolSize and max_connections when the server refuses more connections", async () => {
    const { name } = await createTestDatabase("faults_limited");
    created.push(name);
    await asAdmin(async (admin) => {
      await admin.query("DROP ROLE IF EXISTS two_connections");
      await admin.query("CREATE ROLE two_connections LOGIN CONNECTION LIMIT 2");
      await admin.query(`ALTER DATABASE ${name} OWNER TO two_connections`);
      await admin.query(`GRANT ALL ON SCHEMA public TO two_connections`);
    });
    const url = (await createTestDatabase("unused")).url
      .replace(/\/[^/]+$/, `/${name}`)
      .replace("//downcity@", "//two_connections@");
    // The pool's first connection and the wake-up listener's use up the role's two (the listener
    // connects in the background: wait for it, or the read below could take its place).
    const { store } = await open({ url, poolSize: 3, statementTimeoutMs: 60_000 });
    await until(
      () =>
        asAdmin(async (admin) => {
          const { rows } = await admin.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = 'two_connections'",
          );
          return rows[0]?.n === 2;
        }),
      "the role's two connections open",
    );
    const lock = await holdLock(
      url.replace("//two_connections@", "//downcity@"),
      "LOCK TABLE downcity_inbox IN ACCESS EXCLUSIVE MODE",
    );
    const blocked = store.inbox.claim({ owner: "a" });
    const failed = await errorOf(store.history.context("web:a").read());
    await lock.release();
    await blocked;
    expect(failed?.code).toBe("STORE_UNAVAILABLE");
    expect(failed?.message).toMatch(/too many clients.*store\.poolSize \(3\).*max_connections/);
  });
});

describe("a server restart", () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startTestPostgres();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("reconnects the wake-up listener and frees the poller lock for the next attempt", async () => {
    const url = await server.createDatabase("restart");
    const { store: worker } = await open({ url, pollMs: 60_000 });
    const { store: other } = await open({ url, pollMs: 60_000 });
    let wakes = 0;
    worker.onWake("inbox", () => {
      wakes++;
    });
    const lock = await worker.pollerLock("telegram", { retryMs: 100 });
    await until(async () => {
      await other.inbox.accept(event(`before-${Date.now()}`, "web:before"));
      return wakes > 0;
    }, "a NOTIFY reaching the listener before the restart");
    await server.restart({ immediate: true, downMs: 500 });
    await lock.lost;
    // Operations fail while it was down and work once it is back; no restart of the store.
    await until(
      () =>
        other.inbox.accept(event("after-restart")).then(
          () => true,
          () => false,
        ),
      "an accept once the server is back",
    );
    const before = wakes;
    await other.inbox.accept(event("notified"));
    await until(() => wakes > before, "a NOTIFY after the restart reaching the listener");
    const again = await other.pollerLock("telegram", { retryMs: 100 });
    await again.release();
    expect((await worker.inbox.get("web:after-restart"))?.status).toBe("pending");
  });
});
