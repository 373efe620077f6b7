import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type OpenAICompatibleServer,
  type ScriptedCall,
  startOpenAICompatibleServer,
} from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliRun, runBuiltCli } from "./run-built-cli.js";

// server-everything is a devDependency of @downcity/mcp, so resolve it from there.
const mcpPackageJson = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "packages",
  "mcp",
  "package.json",
);
const everythingEntry = join(
  dirname(createRequire(mcpPackageJson).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);

/** Scripted model: "mcp-echo <text>" -> mcp__everything__echo, a task run -> "task-report: …", tool results -> "tool said: …". */
function reply(call: ScriptedCall) {
  const last = call.messages.at(-1);
  if (!last) return "empty";
  if (last.role === "tool") return `tool said: ${last.text}`;
  const echo = /^mcp-echo (.+)$/.exec(last.text)?.[1];
  if (echo) return { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: echo } }] };
  if (last.text.startsWith("[Task run]")) {
    const body = last.text.split("\n\n").at(-1)?.trim() ?? "";
    return `task-report: did "${body}"`;
  }
  return `echo: ${last.text.split("\n")[0]}`;
}

/** Asserts a run's exit code, showing its stderr when it differs. */
const expectExit = (run: CliRun, code: number) => expect(run.code, run.stderr).toBe(code);

/** Asserts a run succeeded and parses its `--json` output. */
const json = <T>(run: CliRun): T => {
  expectExit(run, 0);
  return JSON.parse(run.stdout) as T;
};

describe("feature packages through the derived CLI against a detached daemon", () => {
  let home: string;
  let project: string;
  let model: OpenAICompatibleServer;
  const cli = (args: string[]) => runBuiltCli(args, { cwd: project, env: { DOWNCITY_HOME: home } });

  beforeAll(async () => {
    expect(existsSync(everythingEntry)).toBe(true);
    home = await mkdtemp(join(tmpdir(), "downcity-features-home-"));
    project = await mkdtemp(join(tmpdir(), "downcity-features-project-"));
    model = await startOpenAICompatibleServer({ respond: reply });
    expectExit(await cli(["init", "."]), 0);
    const configPath = join(project, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    config.llm = { provider: "openai-compatible", model: "scripted", baseURL: model.url };
    config.mcp = {
      servers: { everything: { type: "stdio", command: process.execPath, args: [everythingEntry, "stdio"] } },
    };
    await writeFile(configPath, JSON.stringify(config, null, 2));
    // The skill exists before the daemon starts, so its first scan finds it.
    await mkdir(join(project, ".agents", "skills", "demo"), { recursive: true });
    await writeFile(
      join(project, ".agents", "skills", "demo", "SKILL.md"),
      "---\nname: demo\ndescription: A demo skill for the features e2e test\n---\n\nAlways greet politely.\n",
    );
    const started = await cli(["start", "--json"]);
    expectExit(started, 0);
  });

  afterAll(async () => {
    await runBuiltCli(["stop", project], { env: { DOWNCITY_HOME: home } });
    await model.close();
    await rm(home, { recursive: true, force: true });
    await rm(project, { recursive: true, force: true });
  });

  test("task: create, list, run with its run folder and notify, pause/resume/delete, bad cron", async () => {
    const created = json<{ id: string; notify: string; status: string }>(
      await cli([
        "task",
        "create",
        "report",
        "Daily report",
        "@manual",
        "Summarise the day",
        "--notify",
        "console:notify",
        "--json",
      ]),
    );
    expect(created).toMatchObject({ id: "report", notify: "console:notify", status: "enabled" });
    json(
      await cli([
        "task",
        "create",
        "nightly",
        "Nightly",
        "0 3 * * *",
        "Clean up",
        "--timezone",
        "UTC",
        "--json",
      ]),
    );
    expectExit(await cli(["task", "create", "report", "Again", "@manual", "x"]), 1);

    type Summary = { id: string; when: string; nextFireAt: string | null; status: string };
    const listed = json<{ tasks: Summary[]; problems: unknown[] }>(await cli(["task", "list", "--json"]));
    expect(listed.problems).toEqual([]);
    expect(listed.tasks.find((task) => task.id === "report")).toMatchObject({
      title: "Daily report",
      when: "@manual",
      nextFireAt: null,
      running: null,
    });
    const nightly = listed.tasks.find((task) => task.id === "nightly");
    expect(nightly?.nextFireAt).toMatch(/T03:00:00(\.000)?Z$/);
    expect(Date.parse(nightly?.nextFireAt ?? "")).toBeGreaterThan(Date.now());

    type RunRecord = { taskId: string; runId: string; status: string; trigger: string; notify?: string };
    const run = json<RunRecord>(await cli(["task", "run", "report", "--wait", "--json"]));
    expect(run).toMatchObject({
      taskId: "report",
      status: "succeeded",
      trigger: "manual",
      notify: "console:notify",
    });
    const runDir = join(project, ".downcity", "task", "report", run.runId);
    expect((await readdir(runDir)).sort()).toEqual(
      expect.arrayContaining(["input.md", "messages.jsonl", "output.md", "result.md", "run.json"]),
    );
    expect(await readFile(join(runDir, "input.md"), "utf8")).toContain("Summarise the day");
    expect(await readFile(join(runDir, "output.md"), "utf8")).toBe('task-report: did "Summarise the day"\n');
    const result = await readFile(join(runDir, "result.md"), "utf8");
    expect(result).toContain('Task "Daily report" (report) finished');
    expect(result).toContain('task-report: did "Summarise the day"');
    expect(JSON.parse(await readFile(join(runDir, "run.json"), "utf8"))).toMatchObject({
      runId: run.runId,
      status: "succeeded",
      contextId: `task-run:report:${run.runId}`,
    });
    const runMessages = (await readFile(join(runDir, "messages.jsonl"), "utf8")).trim().split("\n");
    expect(runMessages.length).toBeGreaterThanOrEqual(2);
    expect(runMessages.at(-1)).toContain("task-report");

    const runs = json<RunRecord[]>(await cli(["task", "runs", "report", "--last", "5", "--json"]));
    expect(runs).toEqual([expect.objectContaining({ runId: run.runId, status: "succeeded" })]);

    // The result reaches the notify context as an internal message (and the agent there answers it).
    type History = { messages: Array<{ role: string; metadata?: { origin?: string } }> };
    const notified = await until(
      async () => {
        const history = await cli(["chat", "history", "--context", "console:notify", "--json"]);
        if (history.code !== 0) return undefined;
        const parsed = JSON.parse(history.stdout) as History;
        return JSON.stringify(parsed).includes("task-report") && parsed.messages.length >= 2
          ? parsed
          : undefined;
      },
      "the task result in console:notify",
      { intervalMs: 100 },
    );
    expect(notified.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(notified.messages[0]).toMatchObject({
      metadata: { origin: "internal", contextId: "console:notify" },
    });
    const plain = await cli(["chat", "history", "--context", "console:notify"]);
    expect(plain.stdout).toContain(
      `user: Task "Daily report" (report) finished (manual run ${run.runId}).\n\ntask-report: did "Summarise the day"\n`,
    );
    // The model sees it as a runtime notice, not as something the user wrote.
    expect(plain.stdout).toContain("assistant: echo: Runtime notice (from the Downcity runtime");

    expect(json<{ status: string }>(await cli(["task", "pause", "nightly", "--json"]))).toMatchObject({
      status: "paused",
      nextFireAt: null,
    });
    expect(json<Summary>(await cli(["task", "resume", "nightly", "--json"])).nextFireAt).toMatch(/T03:00/);
    json(await cli(["task", "delete", "nightly", "--json"]));
    json(await cli(["task", "delete", "report", "--json"]));
    expect(json<{ tasks: Summary[] }>(await cli(["task", "list", "--json"])).tasks).toEqual([]);
    expect(existsSync(join(project, ".downcity", "task", "report"))).toBe(false);
    expectExit(await cli(["task", "run", "report"]), 1);

    const bad = await cli(["task", "create", "bad", "Bad", "61 * * * *", "never"]);
    expectExit(bad, 1);
    expect(bad.stderr).toContain('when "61 * * * *" is not a valid cron expression');
    expect(existsSync(join(project, ".downcity", "task", "bad"))).toBe(false);
  });

  test("skills: list shows the fixture skill, load/unload change the context's pins", async () => {
    type Listing = { skills: Array<{ name: string; path: string; pinnedIn: string[] }>; problems: unknown[] };
    const listing = json<Listing>(await cli(["skills", "list", "--json"]));
    expect(listing.problems).toEqual([]);
    expect(listing.skills).toEqual([
      expect.objectContaining({
        name: "demo",
        description: "A demo skill for the features e2e test",
        path: join(project, ".agents", "skills", "demo", "SKILL.md"),
        pinnedIn: [],
      }),
    ]);
    const metaPath = join(project, ".downcity", "context", "console%3Askills", "messages", "meta.json");
    const pins = async () =>
      (JSON.parse(await readFile(metaPath, "utf8")) as { plugins?: { skills?: { pinned?: string[] } } })
        .plugins?.skills?.pinned;

    const loaded = json(await cli(["skills", "load", "demo", "--context-id", "console:skills", "--json"]));
    expect(loaded).toMatchObject({ changed: true, pinnedSkillIds: ["demo"] });
    expect(await pins()).toEqual(["demo"]);
    expect(json<Listing>(await cli(["skills", "list", "--json"])).skills[0]?.pinnedIn).toEqual([
      "console:skills",
    ]);

    const unloaded = json(
      await cli(["skills", "unload", "demo", "--context-id", "console:skills", "--json"]),
    );
    expect(unloaded).toMatchObject({ changed: true, pinnedSkillIds: [] });
    expect(await pins()).toEqual([]);

    const unknown = await cli(["skills", "load", "nope", "--context-id", "console:skills"]);
    expectExit(unknown, 1);
    expect(unknown.stderr).toContain('No skill named "nope"');
  });

  test("memory: remember, search finds it by id, forget, status", async () => {
    const remembered = json<{ entry: { id: string; text: string } }>(
      await cli([
        "memory",
        "remember",
        "Ada always deploys on Fridays",
        "--scope",
        "context",
        "--kind",
        "fact",
        "--context-id",
        "console:mem",
        "--json",
      ]),
    );
    const id = remembered.entry.id;
    expect(id).toMatch(/^m-[0-9a-f]+$/);
    const primary = await readFile(
      join(project, ".downcity", "context", "console%3Amem", "memory", "Primary.md"),
      "utf8",
    );
    expect(primary).toContain("- [fact] Ada always deploys on Fridays");

    type Search = { results: Array<{ id: string; scope: string; text: string }> };
    const found = json<Search>(
      await cli(["memory", "search", "deploys friday", "--context-id", "console:mem", "--json"]),
    );
    expect(found.results).toEqual([
      expect.objectContaining({ id, scope: "context", text: "Ada always deploys on Fridays" }),
    ]);

    const status = json<{ contextId: string; entries: number }>(
      await cli(["memory", "status", "--context-id", "console:mem", "--json"]),
    );
    expect(status).toMatchObject({ contextId: "console:mem", entries: 1, tombstones: 0 });
    const overall = json<{ contexts: string[] }>(await cli(["memory", "status", "--json"]));
    expect(overall.contexts).toContain("console:mem");

    const forgotten = json<{ forgotten: Array<{ id: string }> }>(
      await cli(["memory", "forget", "--entry-id", id, "--context-id", "console:mem", "--json"]),
    );
    expect(forgotten.forgotten.map((entry) => entry.id)).toEqual([id]);
    expect(
      json<Search>(await cli(["memory", "search", "deploys", "--context-id", "console:mem", "--json"]))
        .results,
    ).toEqual([]);
    expect(json(await cli(["memory", "status", "--context-id", "console:mem", "--json"]))).toMatchObject({
      entries: 0,
      tombstones: 1,
    });
  });

  test("mcp: the stdio server becomes ready with tools, and a chat calls mcp__everything__echo", async () => {
    type Servers = { servers: Array<{ name: string; status: string; toolCount: number; pid?: number }> };
    const ready = await until(
      async () => {
        const listed = await cli(["mcp", "list", "--json"]);
        if (listed.code !== 0) return undefined;
        const server = (JSON.parse(listed.stdout) as Servers).servers.find(
          (entry) => entry.name === "everything",
        );
        return server?.status === "ready" ? server : undefined;
      },
      "server-everything to be ready",
      { intervalMs: 100 },
    );
    expect(ready.toolCount).toBeGreaterThan(0);
    expect(ready.pid).toBeGreaterThan(0);
    const tools = json<{ tools: Array<{ name: string; server: string; tool: string }> }>(
      await cli(["mcp", "tools", "--server", "everything", "--json"]),
    );
    expect(tools.tools).toContainEqual(
      expect.objectContaining({ name: "mcp__everything__echo", server: "everything", tool: "echo" }),
    );

    const sent = json<{ text: string; steps: number }>(
      await cli(["chat", "send", "--json", "--context", "console:mcp", "mcp-echo", "hello-through-mcp"]),
    );
    expect(sent.steps).toBe(2);
    expect(sent.text).toContain("tool said:");
    expect(sent.text).toContain("hello-through-mcp");
    const call = model.calls.find((entry) => entry.messages.at(-1)?.text === "mcp-echo hello-through-mcp");
    expect(call?.tools).toContain("mcp__everything__echo");
  });
});
