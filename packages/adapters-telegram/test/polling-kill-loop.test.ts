import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openFileStore } from "@downcity/core";
import { seededRandom, until } from "@downcity/testkit";
import { bundleFromSource } from "@downcity/testkit/bundle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeTelegramServer, startFakeTelegramServer } from "../src/test/fake-telegram-server.js";

// 12 kills by default; TELEGRAM_KILLS raises it, TELEGRAM_KILL_SEED replays a run.
const kills = Number(process.env.TELEGRAM_KILLS ?? (process.env.SOAK ? 60 : 12));
const seed = Number(process.env.TELEGRAM_KILL_SEED ?? Date.now() % 2 ** 31);

describe("telegram polling: SIGKILL at random points", () => {
  let dir: string;
  let childScript: string;
  let fake: FakeTelegramServer;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dc-tg-kill-"));
    // Everything inside: the bundle runs from a temp folder with no node_modules.
    await bundleFromSource({
      entry: { child: fileURLToPath(new URL("./polling-kill-child.ts", import.meta.url)) },
      outDir: join(dir, "bundle"),
      inline: "all",
      requireShim: true,
    });
    childScript = join(dir, "bundle", "child.js");
    fake = await startFakeTelegramServer();
  }, 60_000);

  afterAll(async () => {
    child?.kill("SIGKILL");
    await fake?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const startChild = async () => {
    const started = spawn(
      process.execPath,
      [childScript, fake.url, fake.token, join(dir, "state"), join(dir, "inbox.jsonl")],
      { stdio: ["ignore", "pipe", "inherit"], cwd: fileURLToPath(new URL(".", import.meta.url)) },
    );
    child = started;
    await new Promise<void>((resolve, reject) => {
      started.stdout?.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolve();
      });
      started.once("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    return started;
  };
  const kill = async (target: ChildProcess) => {
    const exited = new Promise((resolve) => target.once("exit", resolve));
    target.kill("SIGKILL");
    await exited;
  };
  const inboxIds = async () => {
    const store = await openFileStore({ rootDir: dir, inboxPath: join(dir, "inbox.jsonl") });
    const ids = new Set((await store.inbox.list()).map((entry) => entry.eventId));
    await store.close();
    return ids;
  };

  it("never confirms an update the inbox does not hold, and loses none", async () => {
    const random = seededRandom(seed);
    await mkdir(join(dir, "state"), { recursive: true });
    const injected: number[] = [];
    for (let round = 0; round < kills; round++) {
      const running = await startChild();
      const burst = 1 + Math.floor(random() * 8);
      for (let index = 0; index < burst; index++)
        injected.push(fake.injectMessage({ from: { id: 40 + (index % 3) }, text: `r${round}-${index}` }));
      // Fault injection, not synchronisation: the kill lands anywhere in polling, accepting or saving.
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 120)));
      await kill(running);
      const held = await inboxIds();
      const confirmedButMissing = injected.filter((id) => fake.isConfirmed(id) && !held.has(String(id)));
      expect(confirmedButMissing, `seed ${seed}, round ${round}`).toEqual([]);
    }
    const last = await startChild();
    await until(() => injected.every((id) => fake.isConfirmed(id)), `every update confirmed (seed ${seed})`);
    await kill(last);
    const held = await inboxIds();
    expect(
      injected.filter((id) => !held.has(String(id))),
      `seed ${seed}`,
    ).toEqual([]);
    expect(held.size).toBe(injected.length);
  }, 120_000);
});
