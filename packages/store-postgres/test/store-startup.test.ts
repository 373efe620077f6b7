import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DowncityError } from "@downcity/core";
import { until } from "@downcity/testkit";
import { bundleFromSource } from "@downcity/testkit/bundle";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { storeTables } from "../src/check-privileges.js";
import { migrations } from "../src/migrations.js";
import { openPostgresStore } from "../src/postgres-store.js";
import { asAdmin, createTestDatabase, dropTestDatabase } from "./test-databases.js";

const freshDatabase = () => createTestDatabase("startup");

describe("start-up", () => {
  it("runs the migrations once, even when several workers start together", async () => {
    const { url } = await freshDatabase();
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore({ url, poolSize: 2 })));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query("SELECT version FROM downcity_migrations ORDER BY version");
    await client.end();
    expect(rows.map((row) => row.version)).toEqual(migrations.map((migration) => migration.version));
    await Promise.all(stores.map((store) => store.close()));
    // A restart finds nothing to do and keeps the data.
    const again = await openPostgresStore({ url });
    await again.close();
  });

  it("names the missing CREATE privilege and the GRANT that fixes it", async () => {
    const { name, url } = await freshDatabase();
    await asAdmin(async (client) => {
      await client.query("DROP ROLE IF EXISTS limited_worker");
      await client.query("CREATE ROLE limited_worker LOGIN");
    });
    const limitedUrl = url.replace("//downcity@", "//limited_worker@");
    const error = await openPostgresStore({ url: limitedUrl }).catch((caught: unknown) => caught);
    expect(DowncityError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/lacks the CREATE privilege on schema "public"/);
    expect((error as Error).message).toContain('GRANT CREATE ON SCHEMA "public" TO "limited_worker"');
    expect((error as DowncityError).field).toBe("store.url");
    // Once the owner created the tables, a user with only table rights starts but is told what it lacks.
    const owner = await openPostgresStore({ url });
    await owner.close();
    const noTables = await openPostgresStore({ url: limitedUrl }).catch((caught: unknown) => caught);
    expect((noTables as Error).message).toMatch(
      /lacks SELECT, INSERT, UPDATE or DELETE on table "downcity_history"/,
    );
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(
      "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO limited_worker",
    );
    await client.query("GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO limited_worker");
    await client.end();
    const limited = await openPostgresStore({ url: limitedUrl });
    expect(
      (
        await limited.inbox.accept({
          channel: "web",
          eventId: "e1",
          contextId: "web:a",
          message: { text: "hi" },
        })
      ).result,
    ).toBe("accepted");
    await limited.close();
    // Every table of the later migrations (tasks, contacts, memory, usage, cancels, shell calls, events) is checked too.
    const later = [
      "downcity_tasks",
      "downcity_contacts",
      "downcity_memory",
      "downcity_usage",
      "downcity_adapter_state",
      "downcity_run_cancels",
      "downcity_shell_sessions",
      "downcity_shell_calls",
      "downcity_events",
    ];
    expect(storeTables).toEqual(expect.arrayContaining(later));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      for (const table of later) {
        await admin.query(`REVOKE ALL ON ${table} FROM limited_worker`);
        const refused = await openPostgresStore({ url: limitedUrl }).catch((caught: unknown) => caught);
        expect((refused as Error).message).toContain(
          `lacks SELECT, INSERT, UPDATE or DELETE on table "${table}"`,
        );
        await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${table} TO limited_worker`);
      }
    } finally {
      await admin.end();
    }
    await dropTestDatabase(name);
  });

  it("rejects a store URL that is not a postgres:// URL, naming the field", async () => {
    const error = await openPostgresStore({ url: "mysql://x" }).catch((caught: unknown) => caught);
    expect((error as DowncityError).code).toBe("CONFIG_INVALID");
    expect((error as Error).message).toContain("store.url");
  });
});

describe("polling channels", () => {
  const children: ChildProcess[] = [];
  let bundleDir = "";
  beforeAll(async () => {
    bundleDir = await mkdtemp(join(tmpdir(), "downcity-poller-"));
    // Everything inside: the bundle runs from a temp folder with no node_modules.
    await bundleFromSource({
      entry: { child: fileURLToPath(new URL("poller-child.ts", import.meta.url)) },
      outDir: bundleDir,
      inline: "all",
      requireShim: true,
    });
  }, 60_000);
  afterAll(() => rm(bundleDir, { recursive: true, force: true }));
  afterEach(() => {
    for (const child of children) child.kill("SIGKILL");
    children.length = 0;
  });

  it("lets exactly one worker poll, and another take over when it is SIGKILLed", async () => {
    const { url } = await freshDatabase();
    const said: string[] = [];
    const start = (name: string) => {
      const child = spawn(process.execPath, [join(bundleDir, "child.js"), url, "telegram", name], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      child.stdout?.on("data", (chunk: Buffer) => said.push(...chunk.toString().trim().split("\n")));
      children.push(child);
      return child;
    };
    const first = start("w1");
    await until(
      () => said.includes("polling w1"),
      () => `"polling w1"; heard ${said.join(", ")}`,
      20_000,
    );
    start("w2");
    start("w3");
    // Both others are up and retrying every 100 ms; neither may poll while w1 lives.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(said).toEqual(["polling w1"]);
    const killedAt = Date.now();
    first.kill("SIGKILL");
    await until(() => said.length >= 2, "another worker to poll", 10_000);
    expect(said.length).toBe(2);
    expect(["polling w2", "polling w3"]).toContain(said[1]);
    expect(Date.now() - killedAt).toBeLessThan(5000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(said).toHaveLength(2);
  });
});
