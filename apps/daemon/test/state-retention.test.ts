import { mkdir, readdir, readFile, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createScriptedModel } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { createTempWorld } from "./temp-project.js";

const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
const dateOf = (daysAgo: number) => day(daysAgo).toISOString().slice(0, 10);
const list = (dir: string) => readdir(dir).catch(() => [] as string[]);

/** A run journal of `daysAgo`, as the file driver lays it out. */
async function journal(rootDir: string, requestId: string, daysAgo: number) {
  const dir = join(rootDir, ".downcity", "runs", dateOf(daysAgo));
  await mkdir(dir, { recursive: true });
  const at = day(daysAgo).toISOString();
  const records = [
    {
      v: 1,
      type: "run",
      at,
      requestId,
      contextId: "cli:main",
      messageIds: [],
      eventIds: [],
      origin: "user",
      settings: { maxSteps: 1, keepLast: 2 },
    },
    {
      v: 1,
      type: "end",
      at,
      outcome: "completed",
      steps: 0,
      usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 },
    },
  ];
  await writeFile(
    join(dir, `${requestId}.jsonl`),
    records.map((record) => `${JSON.stringify(record)}\n`).join(""),
  );
}

/** A shell session folder whose snapshot says `status`, ended `daysAgo`. */
async function session(rootDir: string, id: string, status: string, daysAgo: number) {
  const dir = join(rootDir, ".downcity", "shell", id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "output.log"), "hello\n");
  const ended = status === "running" ? null : day(daysAgo).toISOString();
  await writeFile(join(dir, "snapshot.json"), JSON.stringify({ shell_id: id, status, ended_at: ended }));
  await utimes(dir, day(daysAgo), day(daysAgo));
}

describe("retention of run journals, day logs and shell session folders", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  beforeAll(async () => {
    world = await createTempWorld("dc-retention-");
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it("prunes at start what is older than runs.retainDays, logs.retainDays, shell.retainDays and usage.retainDays, and nothing running or recent", async () => {
    const rootDir = world.project("retention");
    await initProject(rootDir);
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    await writeFile(
      configPath,
      JSON.stringify({
        ...config,
        runs: { retainDays: 10 },
        logs: { retainDays: 5 },
        shell: { retainDays: 2 },
        usage: { retainDays: 3 },
      }),
    );
    await journal(rootDir, "r-old", 11);
    await journal(rootDir, "r-new", 9);
    const logsDir = join(rootDir, ".downcity", "logs");
    await mkdir(logsDir, { recursive: true });
    await writeFile(join(logsDir, `${dateOf(6)}.jsonl`), "{}\n");
    await writeFile(join(logsDir, `${dateOf(4)}.jsonl`), "{}\n");
    await writeFile(join(logsDir, "notes.txt"), "not a day log\n");
    const usageDir = join(rootDir, ".downcity", "usage");
    await mkdir(usageDir, { recursive: true });
    await writeFile(join(usageDir, `${dateOf(5)}.jsonl`), "");
    await writeFile(join(usageDir, `${dateOf(2)}.jsonl`), "");
    await session(rootDir, "sh_oldexited1", "exited", 3);
    await session(rootDir, "sh_newexited1", "exited", 1);
    await session(rootDir, "sh_oldrunning", "running", 30);

    const { daemon } = await startInProcessDaemon(rootDir, world.env, createScriptedModel().model);
    try {
      const runsDir = join(rootDir, ".downcity", "runs");
      await until(async () => !(await list(runsDir)).includes(dateOf(11)), "the old journal's day to go");
      expect(await list(join(runsDir, dateOf(9)))).toEqual(["r-new.jsonl"]);
      await until(async () => !(await list(logsDir)).includes(`${dateOf(6)}.jsonl`), "the old day log to go");
      expect(await list(logsDir)).toEqual(expect.arrayContaining([`${dateOf(4)}.jsonl`, "notes.txt"]));
      const shellDir = join(rootDir, ".downcity", "shell");
      await until(
        async () => !(await list(shellDir)).includes("sh_oldexited1"),
        "the old session folder to go",
      );
      expect(await list(shellDir)).toEqual(expect.arrayContaining(["sh_newexited1", "sh_oldrunning"]));
      await until(
        async () => !(await list(usageDir)).includes(`${dateOf(5)}.jsonl`),
        "the old usage day to go",
      );
      expect(await list(usageDir)).toEqual(expect.arrayContaining([`${dateOf(2)}.jsonl`]));
    } finally {
      await daemon.close();
    }
  });
});
