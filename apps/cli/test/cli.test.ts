import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBuiltCli } from "./run-built-cli.js";

let home: string;
let work: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "downcity-cli-home-"));
  work = await mkdtemp(join(tmpdir(), "downcity-cli-work-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const cli = (args: string[], cwd?: string) =>
  runBuiltCli(args, { cwd: cwd ?? work, env: { DOWNCITY_HOME: home } });

describe("help", () => {
  const commands = [
    [],
    ["init"],
    ["run"],
    ["start"],
    ["stop"],
    ["restart"],
    ["status"],
    ["chat"],
    ["chat", "send"],
    ["chat", "history"],
    ["service"],
    ["service", "list"],
    ["service", "control"],
    ["service", "command"],
    ["console"],
    ["console", "start"],
    ["console", "stop"],
    ["console", "status"],
    ["console", "agents"],
    ["agent"],
    ["agent", "on"],
    ["agent", "off"],
    ["demo"],
  ];
  test.each(commands)("downcity %s --help exits 0 with usage", async (...path) => {
    const run = await cli([...path, "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Usage: downcity${path.length ? ` ${path.join(" ")}` : ""}`);
  });

  test("top-level help lists every command and the exit codes", async () => {
    const run = await cli(["--help"]);
    for (const name of [
      "init",
      "run",
      "start",
      "stop",
      "restart",
      "status",
      "chat",
      "service",
      "console",
      "agent",
      "demo",
    ]) {
      expect(run.stdout).toMatch(new RegExp(`\\n  ${name} `));
    }
    expect(run.stdout).toContain("3 not running");
  });

  test("--version prints the version", async () => {
    const run = await cli(["--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("usage errors exit 2", () => {
  test.each([
    [["chat", "send"], "missing required argument 'text'"],
    [["chat", "history", "--last", "many"], "not a number"],
    [["chat", "history", "--last", "0"], "not a positive integer"],
    [["service", "control", "shell", "explode"], "Allowed choices are start, stop, restart, status"],
    [["service", "command", "shell", "list", "--json-input", "{oops"], "not valid JSON"],
    [["service", "command", "shell", "list", "--json-input", "[1]"], "must be a JSON object"],
    [["status", "--bogus"], "unknown option '--bogus'"],
    [["stop", "--grace", "-5"], "--grace"],
    [["status", "a", "b"], "too many arguments"],
    [["service"], "Usage: downcity service"],
  ])("downcity %j", async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr + run.stdout).toContain(message);
  });

  test("a word that is not a built-in command is taken for a service command of a daemon that is not running", async () => {
    const run = await cli(["shell", "list"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "is not a built-in command, so it can only be a service command of the project's daemon, which is not running",
    );
    expect(run.stderr).toContain("downcity start");
  });
});

describe("status", () => {
  test("exits 3 when no daemon runs, in text and JSON", async () => {
    const project = await mkdtemp(join(work, "idle-"));
    const text = await cli(["status", project]);
    expect(text.code).toBe(3);
    expect(text.stdout).toContain(`Not running: ${project}`);
    const json = await cli(["status", project, "--json"]);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toEqual({ rootDir: project, running: false });
  });

  test("cleans a stale pid file of a dead process and still exits 3", async () => {
    const project = await mkdtemp(join(work, "stale-"));
    const debug = join(project, ".downcity", "debug");
    await import("node:fs/promises").then((fs) => fs.mkdir(debug, { recursive: true }));
    const meta = {
      pid: 2 ** 22 - 3,
      host: "127.0.0.1",
      port: 9,
      startedAt: new Date().toISOString(),
      version: "0.0.0",
    };
    await writeFile(join(debug, "daemon.json"), JSON.stringify(meta));
    await writeFile(join(debug, "daemon.pid"), `${meta.pid}\n`);
    const run = await cli(["status", project, "--json"]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ running: false, staleCleaned: true });
    await expect(readFile(join(debug, "daemon.pid"), "utf8")).rejects.toThrow();
  });

  test("chat send without a daemon is an error (exit 1) that says how to start one", async () => {
    const project = await mkdtemp(join(work, "nodaemon-"));
    const run = await cli(["chat", "send", "hello", "--dir", project]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/downcity start|daemon/);
  });
});

describe("init", () => {
  test("writes the project files once and never overwrites them", async () => {
    const project = join(work, "fresh");
    const first = await cli(["init", project, "--json"]);
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout) as { created: string[]; skipped: string[] };
    expect(created.created.length).toBeGreaterThan(0);
    const config = JSON.parse(await readFile(join(project, "downcity.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(String(config.$schema)).toContain(".downcity/schema/downcity.schema.json");
    await writeFile(join(project, "PROFILE.md"), "my own profile\n");
    const second = await cli(["init", project, "--json"]);
    expect(second.code).toBe(0);
    const again = JSON.parse(second.stdout) as { created: string[]; skipped: string[] };
    expect(again.created).toEqual([]);
    expect(await readFile(join(project, "PROFILE.md"), "utf8")).toBe("my own profile\n");
    const human = await cli(["init", project]);
    expect(human.stdout).toContain("already initialised");
  });
});
