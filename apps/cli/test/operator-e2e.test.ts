import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type CliRun, runBuiltCli } from "./run-built-cli.js";

// The mistakes a new operator makes in the first hour, each through the built CLI as a user runs it.
let home: string;
let work: string;
const started: string[] = [];
const held: Server[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "downcity-operator-home-"));
  work = await mkdtemp(join(tmpdir(), "downcity-operator-work-"));
});
afterAll(async () => {
  for (const project of started) await runBuiltCli(["stop", project], { env: { DOWNCITY_HOME: home } });
  for (const server of held) await new Promise((done) => server.close(done));
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

// No key in the environment, whatever the machine running the tests has set.
const cli = (args: string[], cwd: string) =>
  runBuiltCli(args, { cwd, env: { DOWNCITY_HOME: home, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" } });
const expectExit = (run: CliRun, code: number) => expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(code);
// A keyless local model: nothing here sends a message, so it never needs to answer.
const llm = { provider: "openai-compatible", model: "local", baseURL: "http://127.0.0.1:9/v1" };

async function project(config: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(work, "project-"));
  expectExit(await cli(["init", "."], dir), 0);
  await writeFile(join(dir, "downcity.json"), JSON.stringify({ name: "op", llm, ...config }, null, 2));
  return dir;
}

async function holdPort(): Promise<number> {
  const server = createServer();
  held.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return (server.address() as { port: number }).port;
}

async function statusOf(dir: string): Promise<{ running: boolean; pid?: number; degraded?: unknown[] }> {
  const run = await cli(["status", "--json"], dir);
  return JSON.parse(run.stdout) as { running: boolean; pid?: number };
}

describe("the operator's first hour", () => {
  test("restart with a typo leaves the running daemon alone and exits 1; after the fix it restarts", async () => {
    const dir = await project({});
    started.push(dir);
    expectExit(await cli(["start"], dir), 0);
    const before = await statusOf(dir);
    expect(before.running).toBe(true);

    const good = await readFile(join(dir, "downcity.json"), "utf8");
    await writeFile(join(dir, "downcity.json"), JSON.stringify({ ...JSON.parse(good), chanels: {} }));
    const refused = await cli(["restart"], dir);
    expectExit(refused, 1);
    expect(refused.stderr).toContain("Not restarting");
    expect(refused.stderr).toContain('did you mean "channels"');
    expect(refused.stderr).toContain(`pid ${before.pid}) keeps running`);
    expect(await statusOf(dir)).toMatchObject({ running: true, pid: before.pid });

    await writeFile(join(dir, "downcity.json"), good);
    expectExit(await cli(["restart"], dir), 0);
    const after = await statusOf(dir);
    expect(after.running).toBe(true);
    expect(after.pid).not.toBe(before.pid);
    expectExit(await cli(["stop"], dir), 0);
  });

  test("start with a webhook channel whose port is taken exits 5 naming the channel, the port and listen.port", async () => {
    const port = await holdPort();
    const dir = await project({
      channels: {
        hook: {
          adapter: "@downcity/adapters-webhook",
          listen: { host: "127.0.0.1", port },
          url: "http://127.0.0.1:9/replies",
          secret: "0123456789abcdef0123456789abcdef",
        },
      },
    });
    started.push(dir);
    const run = await cli(["start"], dir);
    expectExit(run, 5);
    expect(run.stdout).toContain("Running, degraded");
    expect(run.stdout).toMatch(new RegExp(`channel hook failed: .*127\\.0\\.0\\.1:${port}.*listen\\.port`));
    const status = await cli(["status"], dir);
    expectExit(status, 0);
    expect(status.stdout).toContain("channel hook failed");
    expect((await statusOf(dir)).degraded).toEqual([
      { kind: "channel", name: "hook", error: expect.stringContaining(String(port)) },
    ]);
    expectExit(await cli(["stop"], dir), 0);
  });

  test("a taken start.port is named with the way out, before anything is spawned", async () => {
    const port = await holdPort();
    const dir = await project({ start: { port } });
    const run = await cli(["start"], dir);
    expectExit(run, 1);
    expect(run.stderr).toContain("start.port");
    expect(run.stderr).toContain(`127.0.0.1:${port} is in use`);
    expect(run.stderr).toContain("0 picks a free one");
    expect(existsSync(join(dir, ".downcity", "debug", "daemon.log"))).toBe(false);
  });

  test("a failed start shows what it wrote, and the next failed start none of that", async () => {
    const dir = await project({ store: { adapter: "./first-missing-store.mjs" } });
    const first = await cli(["start"], dir);
    expectExit(first, 1);
    expect(first.stderr).toContain("first-missing-store");
    const config = JSON.parse(await readFile(join(dir, "downcity.json"), "utf8"));
    await writeFile(
      join(dir, "downcity.json"),
      JSON.stringify({ ...config, store: { adapter: "./second-missing-store.mjs" } }),
    );
    const second = await cli(["start"], dir);
    expectExit(second, 1);
    expect(second.stderr).toContain("second-missing-store");
    expect(second.stderr).not.toContain("first-missing-store");
  });

  test("doctor --offline fails on an unknown section, an empty Telegram token, a provider without a key and a trailing comma", async () => {
    const typo = await project({ chanels: {} });
    const unknown = await cli(["doctor", "--offline"], typo);
    expectExit(unknown, 1);
    expect(unknown.stdout).toMatch(/FAIL\s+config/);
    expect(unknown.stdout).toContain('did you mean "channels"');

    const telegram = await project({
      channels: { tg: { adapter: "@downcity/adapters-telegram", token: "" } },
    });
    const token = await cli(["doctor", "--offline"], telegram);
    expectExit(token, 1);
    expect(token.stdout).toContain("channels.tg.token");

    const keyless = await project({ llm: { provider: "openai", model: "gpt-4.1-mini" } });
    const key = await cli(["doctor", "--offline"], keyless);
    expectExit(key, 1);
    expect(key.stdout).toMatch(/FAIL\s+model\s+.*OPENAI_API_KEY/);

    const comma = await project({});
    await writeFile(join(comma, "downcity.json"), '{\n  "name": "op",\n}\n');
    const syntax = await cli(["doctor", "--offline"], comma);
    expectExit(syntax, 1);
    expect(syntax.stdout).toContain("downcity.json:2:15: a trailing comma");
    expect(syntax.stdout).toMatch(/\|\s+\^/);
  });

  test("console open on a fresh home signs in to a page that lists a plain start; stopped agents stay listed everywhere until agent off", async () => {
    const fresh = await mkdtemp(join(tmpdir(), "downcity-operator-console-"));
    const inFresh = (args: string[], cwd: string) =>
      runBuiltCli(args, { cwd, env: { DOWNCITY_HOME: fresh } });
    const dir = await project({});
    try {
      expectExit(await inFresh(["start"], dir), 0);
      const open = await inFresh(["console", "open", "--print"], dir);
      expectExit(open, 0);
      const link = /^http:\/\/127\.0\.0\.1:\d+\/login\?code=\S+$/m.exec(open.stdout)?.[0] as string;
      expect(link).toBeDefined();
      const login = await fetch(link, { redirect: "manual" });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] as string;
      const pageAgents = async () => {
        const response = await fetch(new URL("/console/api/agents", link), { headers: { cookie } });
        expect(response.status).toBe(200);
        return ((await response.json()) as { agents: Array<{ projectRoot: string; status: string }> }).agents;
      };
      expect(await pageAgents()).toEqual([expect.objectContaining({ projectRoot: dir, status: "running" })]);
      // The MCP page asks which services exist: no `mcp` service without servers, so no 404 to show.
      const services = await fetch(new URL(`/console/api/services?agent=${encodeURIComponent(dir)}`, link), {
        headers: { cookie },
      });
      expect(services.status).toBe(200);
      const names = ((await services.json()) as { services: Array<{ name: string }> }).services.map(
        (service) => service.name,
      );
      expect(names).toContain("chat");
      expect(names).not.toContain("mcp");

      expectExit(await inFresh(["stop"], dir), 0);
      const listed = await inFresh(["console", "agents", "--json"], dir);
      expect(JSON.parse(listed.stdout)).toMatchObject({
        agents: [],
        stopped: [expect.objectContaining({ projectRoot: dir })],
        removed: [],
      });
      expect(await pageAgents()).toEqual([expect.objectContaining({ projectRoot: dir, status: "stopped" })]);

      expectExit(await inFresh(["agent", "off", dir], dir), 0);
      expect(JSON.parse((await inFresh(["console", "agents", "--json"], dir)).stdout)).toMatchObject({
        agents: [],
        stopped: [],
      });
      expect(await pageAgents()).toEqual([]);
    } finally {
      await inFresh(["stop", dir], dir);
      await inFresh(["console", "stop"], dir);
      await rm(fresh, { recursive: true, force: true });
    }
  });

  test("start and chat send outside a project say so, and spawn nothing", async () => {
    const empty = await mkdtemp(join(tmpdir(), "downcity-operator-nowhere-"));
    try {
      const start = await cli(["start"], empty);
      expectExit(start, 1);
      expect(start.stderr).toContain("No downcity.json here");
      expect(start.stderr).toContain("downcity init");
      expect(start.stderr).not.toContain("(field:");
      expect(existsSync(join(empty, ".downcity"))).toBe(false);
      const send = await cli(["chat", "send", "hello"], empty);
      expectExit(send, 1);
      expect(send.stderr).toContain("No downcity.json here");
      expect(send.stderr).not.toContain("downcity start");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
