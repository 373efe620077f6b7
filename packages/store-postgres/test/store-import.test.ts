import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createFileAccessStore,
  createFileMemoryStore,
  createUsageLog,
  openFileStore,
  type UsageRecord,
} from "@downcity/core";
import { importLocalState } from "@downcity/daemon";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStore, type PostgresStore } from "../src/postgres-store.js";
import { createTestDatabase, dropTestDatabase } from "./test-databases.js";

const opened: PostgresStore[] = [];
const created: string[] = [];
const folders: string[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const name of created.splice(0)) await dropTestDatabase(name);
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const usage = (requestId: string, step: number): UsageRecord => ({
  at: `2026-11-2${step}T10:00:00.000Z`,
  contextId: "web:a",
  requestId,
  step,
  provider: "openai",
  model: "m",
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 0,
  totalTokens: 15,
  durationMs: 100,
  finishReason: "stop",
});

/** A project whose one worker kept everything in its `.downcity/` files. */
async function localProject(): Promise<string> {
  const rootDir = await mkdtemp(join(tmpdir(), "dc-import-"));
  folders.push(rootDir);
  const files = await openFileStore({ rootDir });
  await files.history.context("web:a").append([
    { id: "m1", role: "user", parts: [{ type: "text", text: "remember the blue door" }] },
    { id: "m2", role: "assistant", parts: [{ type: "text", text: "noted" }] },
  ]);
  await files.contacts?.seen({
    channel: "web",
    chatId: "a",
    chatType: "direct",
    contextId: "web:a",
    userId: "alice-id",
    username: "alice",
    lastSeen: "2026-11-20T10:00:00.000Z",
  });
  await files.close();
  const memory = createFileMemoryStore({ rootDir });
  await memory.update({ kind: "context", contextId: "web:a" }, (writer) =>
    writer.writePrimary("- [e1] the door is blue (web:a m1)\n"),
  );
  await memory.update({ kind: "profile" }, (writer) => writer.writePrimary("- [p1] the user likes tea\n"));
  const taskDir = join(rootDir, ".downcity", "task", "daily-report");
  await mkdir(join(taskDir, "20261120-090000"), { recursive: true });
  await writeFile(
    join(taskDir, "task.md"),
    "---\ntitle: Daily report\ncron: 0 9 * * *\n---\nWrite the report.\n",
  );
  await writeFile(
    join(taskDir, "20261120-090000", "run.json"),
    JSON.stringify({ taskId: "daily-report", runId: "20261120-090000", status: "succeeded" }),
  );
  const access = createFileAccessStore((name) => join(rootDir, ".downcity", "channels", name));
  await access.channel("telegram").allow({ userId: "42", username: "bob" });
  await access.channel("telegram").allowGroup({ chatId: "-100", title: "team" });
  const log = createUsageLog({ rootDir });
  await log.append(usage("r1", 1));
  await log.append(usage("r1", 2));
  return rootDir;
}

describe("downcity store import", () => {
  it("copies history, memory, contacts, tasks, access and usage into PostgreSQL once, and counts in a dry run", async () => {
    const rootDir = await localProject();
    const { name, url } = await createTestDatabase("import");
    created.push(name);
    const store = await openPostgresStore({ url, poolSize: 2 });
    opened.push(store);

    const progress: string[] = [];
    const dry = await importLocalState({
      rootDir,
      store,
      dryRun: true,
      onProgress: (kind) => progress.push(kind),
    });
    expect(progress).toEqual(["history", "memory", "contacts", "tasks", "access", "usage"]);
    const expected = {
      history: { imported: 2, present: 0 },
      memory: { imported: 2, present: 0 },
      contacts: { imported: 1, present: 0 },
      tasks: { imported: 2, present: 0 },
      access: { imported: 2, present: 0 },
      usage: { imported: 2, present: 0 },
    };
    expect(dry.counts).toEqual(expected);
    expect(await store.history.context("web:a").read()).toEqual([]);

    expect((await importLocalState({ rootDir, store })).counts).toEqual(expected);
    expect((await store.history.context("web:a").read()).map((message) => message.id)).toEqual(["m1", "m2"]);
    expect((await store.memory?.read({ kind: "context", contextId: "web:a" }))?.primary).toContain(
      "the door is blue",
    );
    expect((await store.memory?.read({ kind: "profile" }))?.primary).toContain("likes tea");
    expect((await store.contacts?.byUsername("alice"))?.map((contact) => contact.userId)).toEqual([
      "alice-id",
    ]);
    expect(await store.tasks?.read("daily-report")).toContain("Write the report.");
    expect((await store.tasks?.runs("daily-report", 10))?.map((run) => run.status)).toEqual(["succeeded"]);
    const access = await store.access?.channel("telegram").read();
    expect(access?.approved.map((user) => user.userId)).toEqual(["42"]);
    expect(access?.groups.map((group) => group.chatId)).toEqual(["-100"]);
    expect(await store.usage?.read()).toHaveLength(2);

    // Again: everything is already there, nothing is copied twice.
    const again = await importLocalState({ rootDir, store });
    for (const count of Object.values(again.counts)) expect(count.imported).toBe(0);
    expect(again.counts.history.present).toBe(2);
    expect(await store.usage?.read()).toHaveLength(2);
    expect(await store.history.context("web:a").read()).toHaveLength(2);
  });
});
