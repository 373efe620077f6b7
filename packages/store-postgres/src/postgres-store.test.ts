import { DowncityError } from "@downcity/core";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { migrations } from "./migrations.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

// What the shared conformance suites leave to each store: upgrades, races with a drop, wake-ups, locks.
const opened: PostgresStore[] = [];
const created: string[] = [];
const freshDatabase = async () => {
  const { name, url } = await createTestDatabase("store");
  created.push(name);
  return url;
};
const open = async (url: string, options: { dedupeWindowMs?: number; pollMs?: number } = {}) => {
  const store = await openPostgresStore({ url, poolSize: 2, ...options });
  opened.push(store);
  return store;
};
const event = (eventId: string, contextId = "web:a") => ({
  channel: "web",
  eventId,
  contextId,
  message: { text: `text of ${eventId}` },
});
const chunk = (key: string) => ({
  key,
  channel: "web",
  contextId: "web:a",
  target: { chatId: "a", chatType: "direct" as const },
  text: `text of ${key}`,
});
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as DowncityError,
  );

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

describe("migrations", () => {
  it("upgrades a database of version 1 in place, keeping its entries", async () => {
    const url = await freshDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const [first] = migrations;
    await client.query("CREATE TABLE downcity_migrations (version integer PRIMARY KEY, name text NOT NULL)");
    await client.query(first?.sql ?? "");
    await client.query("INSERT INTO downcity_migrations (version, name) VALUES (1, $1)", [first?.name]);
    await client.query(
      `INSERT INTO downcity_inbox (id, channel, event_id, context_id, message, accepted_at, status)
       VALUES ('web:old', 'web', 'old', 'web:a', '{"text":"before the upgrade"}', now(), 'pending')`,
    );
    const store = await open(url);
    const { rows } = await client.query("SELECT version FROM downcity_migrations ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual(migrations.map((migration) => migration.version));
    expect((await store.inbox.list()).map((entry) => entry.message.text)).toEqual(["before the upgrade"]);
    await store.inbox.drop("web:old");
    const { rows: kept } = await client.query("SELECT status, message FROM downcity_inbox");
    await client.end();
    // The row stays, without its body.
    expect(kept).toEqual([{ status: "dropped", message: {} }]);
  });
});

describe("inbox drop", () => {
  it("ends a live claim: the next event of the context is claimable, and the old run cannot revive it", async () => {
    const store = await open(await freshDatabase());
    await store.inbox.accept(event("e1"));
    await store.inbox.accept(event("e2"));
    expect((await store.inbox.claim({ owner: "w1" }))?.id).toBe("web:e1");
    await store.inbox.drop("web:e1");
    expect(await store.inbox.get("web:e1")).toBeUndefined();
    expect((await store.inbox.claim({ owner: "w2" }))?.id).toBe("web:e2");
    // The worker that ran e1 finishes late: failing it is NOT_FOUND, completing it changes nothing.
    expect((await errorOf(store.inbox.fail("web:e1", "boom", 3)))?.code).toBe("NOT_FOUND");
    await store.inbox.complete("web:e1");
    expect(await store.inbox.renew("web:e1", { owner: "w1" })).toBe(false);
    expect((await store.inbox.list()).map((entry) => entry.id)).toEqual(["web:e2"]);
    expect((await errorOf(store.inbox.retry("web:e1")))?.code).toBe("NOT_FOUND");
  });

  it("is NOT_FOUND for an unknown, finished or already dropped id", async () => {
    const store = await open(await freshDatabase());
    expect(DowncityError.isInstance(await errorOf(store.inbox.drop("web:none")))).toBe(true);
    await store.inbox.accept(event("e1"));
    await store.inbox.complete("web:e1");
    expect((await errorOf(store.inbox.drop("web:e1")))?.code).toBe("NOT_FOUND");
    await store.inbox.accept(event("e2"));
    await store.inbox.drop("web:e2");
    expect((await errorOf(store.inbox.drop("web:e2")))?.code).toBe("NOT_FOUND");
  });

  it("forgets a dropped id once the dedupe window has passed", async () => {
    const store = await open(await freshDatabase(), { dedupeWindowMs: 0 });
    await store.inbox.accept(event("e1"));
    await store.inbox.drop("web:e1");
    expect((await store.inbox.accept(event("e1"))).result).toBe("accepted");
    expect((await store.inbox.list()).map((entry) => entry.id)).toEqual(["web:e1"]);
  });
});

describe("outbox", () => {
  it("keeps a dropped key known, unsent, and out of reach of a late fail", async () => {
    const store = await open(await freshDatabase());
    await store.outbox.record(chunk("k1"));
    await store.outbox.record(chunk("k2"));
    expect((await store.outbox.claim({ owner: "w1" }))?.key).toBe("k1");
    await store.outbox.drop("k1");
    expect((await store.outbox.claim({ owner: "w2" }))?.key).toBe("k2");
    expect((await errorOf(store.outbox.fail("k1", "boom", 3)))?.code).toBe("NOT_FOUND");
    expect(await store.outbox.wasSent("k1")).toBe(false);
    expect(await store.outbox.record(chunk("k1"))).toBe("known");
    expect((await errorOf(store.outbox.drop("k1")))?.code).toBe("NOT_FOUND");
    expect((await errorOf(store.outbox.drop("nope")))?.code).toBe("NOT_FOUND");
  });

  it("keeps later chunks of the chat waiting behind a delayed retry; a dead chunk is held by nobody", async () => {
    const url = await freshDatabase();
    const store = await open(url);
    await store.outbox.record(chunk("k1"));
    await store.outbox.record(chunk("k2"));
    await store.outbox.claim({ owner: "w1" });
    await store.outbox.fail("k1", "429", 5, false, 60_000);
    expect(await store.outbox.claim({ owner: "w2" })).toBeUndefined();
    const held = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(
        "SELECT claimed_by, claimed_until > clock_timestamp() + interval '50 seconds' AS later FROM downcity_outbox WHERE key = 'k1'",
      );
      await client.end();
      return rows[0];
    };
    expect(await held()).toEqual({ claimed_by: null, later: true });
    expect(await store.outbox.fail("k1", "403", 5, true, 60_000)).toMatchObject({ status: "dead" });
    expect(await held()).toEqual({ claimed_by: null, later: null });
    await store.outbox.retry("k1");
    expect((await store.outbox.claim({ owner: "w2" }))?.key).toBe("k1");
  });
});

describe("prune", () => {
  it("deletes finished, dropped and sent rows past the dedupe window, never pending or dead ones", async () => {
    const url = await freshDatabase();
    const store = await open(url, { dedupeWindowMs: 300 });
    for (const id of ["done", "dropped", "pending", "dead"]) await store.inbox.accept(event(id, `web:${id}`));
    await store.inbox.claim({ owner: "w1" });
    await store.inbox.complete("web:done");
    await store.inbox.drop("web:dropped");
    await store.inbox.claim({ owner: "w1" });
    await store.inbox.claim({ owner: "w1" });
    await store.inbox.fail("web:dead", "boom", 1);
    await store.outbox.record(chunk("sent"));
    await store.outbox.claim({ owner: "w1" });
    await store.outbox.complete("sent");
    await store.outbox.record({ ...chunk("waiting"), target: { chatId: "other" } });
    expect(await store.prune()).toEqual({ inbox: 0, outbox: 0, leases: 0, events: 0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await store.prune()).toEqual({ inbox: 2, outbox: 1, leases: 0, events: 0 });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const rows = {
      inbox: (await client.query("SELECT id, status FROM downcity_inbox ORDER BY id")).rows,
      outbox: (await client.query("SELECT key, status FROM downcity_outbox ORDER BY key")).rows,
    };
    await client.end();
    expect(rows.inbox).toEqual([
      { id: "web:dead", status: "dead" },
      { id: "web:pending", status: "pending" },
    ]);
    expect(rows.outbox).toEqual([{ key: "waiting", status: "pending" }]);
    // Past the window an old id is simply new again.
    expect((await store.inbox.accept(event("done", "web:done"))).result).toBe("accepted");
  });
});

describe("wake-ups", () => {
  it("wakes another worker's listener on accept and a failure without delay (not on record), until unsubscribed", async () => {
    const url = await freshDatabase();
    // A slow poll far off, so only notifications count.
    const listener = await open(url, { pollMs: 600_000 });
    const worker = await open(url);
    const heard = { inbox: 0, outbox: 0 };
    const offInbox = listener.onWake("inbox", () => heard.inbox++);
    listener.onWake("outbox", () => heard.outbox++);
    const after = async (kind: "inbox" | "outbox", work: () => Promise<unknown>) => {
      // The first wake-up after (re)connecting is the listener's own; wait until things are quiet.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = heard[kind];
      await work();
      const deadline = Date.now() + 5000;
      while (heard[kind] === before && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return heard[kind] - before;
    };
    expect(await after("inbox", () => worker.inbox.accept(event("e1")))).toBeGreaterThan(0);
    // The recording worker sends its own chunk: nobody else is woken for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const quiet = heard.outbox;
    await worker.outbox.record(chunk("k1"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard.outbox).toBe(quiet);
    await worker.outbox.claim({ owner: "w1" });
    expect(await after("outbox", () => worker.outbox.fail("k1", "boom", 5))).toBeGreaterThan(0);
    offInbox();
    const before = heard.inbox;
    await worker.inbox.accept(event("e2"));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(heard.inbox).toBe(before);
  });
});

describe("poller lock", () => {
  it("stops waiting when aborted, and hands the lock over once released", async () => {
    const store = await open(await freshDatabase());
    const held = await store.pollerLock("telegram", { signal: new AbortController().signal });
    const controller = new AbortController();
    const waiting = store.pollerLock("telegram", { signal: controller.signal, retryMs: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const abortedAt = Date.now();
    controller.abort(new Error("shutting down"));
    await expect(waiting).rejects.toThrow("shutting down");
    expect(Date.now() - abortedAt).toBeLessThan(1000);
    let lost = false;
    void held.lost.then(() => {
      lost = true;
    });
    await held.release();
    const next = await store.pollerLock("telegram", { retryMs: 50 });
    // Given back, not lost: `lost` is for a connection that dropped under the lock.
    expect(lost).toBe(false);
    await next.release();
  });

  it("resolves lost when the connection holding the lock is ended by the server", async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const held = await store.pollerLock("gateway");
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
    );
    await client.end();
    await held.lost;
    await held.release().catch(() => {});
  });
});
