import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, dropTestDatabase } from "../test/test-databases.js";
import { migrations } from "./migrations.js";
import { openPostgresStore, type PostgresStore } from "./postgres-store.js";

// What the outbox conformance suite cannot see: the columns behind a chunk's files and buttons.
const opened: PostgresStore[] = [];
const created: string[] = [];
const clients: pg.Client[] = [];
const freshDatabase = async () => {
  const { name, url } = await createTestDatabase("outbox");
  created.push(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  clients.push(client);
  return { url, client };
};
const open = async (url: string) => {
  const store = await openPostgresStore({ url, poolSize: 2 });
  opened.push(store);
  return store;
};
const file = {
  name: "notes.txt",
  mediaType: "text/plain",
  size: 5,
  sha256: "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
  path: ".downcity/media/sent/2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824-notes.txt",
};
const chunk = (key: string) => ({
  key,
  channel: "web",
  contextId: "web:a",
  target: { chatId: "a", chatType: "direct" as const },
  text: `text of ${key}`,
  attachments: [file],
  actions: [{ id: "approve:r1:c1", label: "Approve" }],
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const client of clients.splice(0)) await client.end();
  for (const name of created.splice(0)) await dropTestDatabase(name);
});

describe("outbox files and buttons", () => {
  it("upgrades a database whose outbox predates them: its pending chunk is sent without either", async () => {
    const { url, client } = await freshDatabase();
    const added = migrations.findIndex((migration) => migration.name === "outbox attachments and actions");
    expect(added).toBeGreaterThan(0);
    await client.query("CREATE TABLE downcity_migrations (version integer PRIMARY KEY, name text NOT NULL)");
    for (const migration of migrations.slice(0, added)) {
      await client.query(migration.sql);
      await client.query("INSERT INTO downcity_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    }
    await client.query(
      `INSERT INTO downcity_outbox (key, channel, context_id, chat, target, text, created_at, status)
       VALUES ('old', 'web', 'web:a', '["web","a",""]', '{"chatId":"a"}', 'before the upgrade', now(), 'pending')`,
    );
    const store = await open(url);
    const entry = await store.outbox.claim({ owner: "w1" });
    expect(entry).toMatchObject({ key: "old", text: "before the upgrade" });
    expect(entry).not.toHaveProperty("attachments");
    expect(entry).not.toHaveProperty("actions");
  });

  it("keeps only the key of a sent or dropped chunk, not its files or buttons", async () => {
    const { url, client } = await freshDatabase();
    const store = await open(url);
    await store.outbox.record(chunk("sent"));
    await store.outbox.record({ ...chunk("dropped"), target: { chatId: "b", chatType: "direct" } });
    const { rows: recorded } = await client.query(
      "SELECT key, attachments, actions FROM downcity_outbox ORDER BY key",
    );
    expect(recorded).toEqual([
      { key: "dropped", attachments: [file], actions: [{ id: "approve:r1:c1", label: "Approve" }] },
      { key: "sent", attachments: [file], actions: [{ id: "approve:r1:c1", label: "Approve" }] },
    ]);
    expect((await store.outbox.claim({ owner: "w1" }))?.key).toBe("sent");
    await store.outbox.complete("sent", "m-1");
    await store.outbox.drop("dropped");
    const { rows } = await client.query(
      "SELECT key, status, text, attachments, actions FROM downcity_outbox ORDER BY key",
    );
    expect(rows).toEqual([
      { key: "dropped", status: "dropped", text: "", attachments: null, actions: null },
      { key: "sent", status: "sent", text: "", attachments: null, actions: null },
    ]);
    expect(await store.outbox.record(chunk("sent"))).toBe("known");
  });
});
