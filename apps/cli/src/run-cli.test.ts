import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runBuiltCli } from "../test/run-built-cli.js";

let home: string;
let work: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "downcity-run-cli-home-"));
  work = await mkdtemp(join(tmpdir(), "downcity-run-cli-work-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const cli = (args: string[], cwd?: string) =>
  runBuiltCli(args, { cwd: cwd ?? work, env: { DOWNCITY_HOME: home } });

/** A project folder whose `.downcity/cache/cli-schema.json` lists a `task` service, as a daemon left it. */
async function projectWithCachedSchema(): Promise<string> {
  const project = await mkdtemp(join(work, "project-"));
  await writeFile(join(project, "downcity.json"), "{}\n");
  await mkdir(join(project, ".downcity", "cache"), { recursive: true });
  const cache = {
    savedAt: "2026-01-02T03:04:05.000Z",
    services: [
      {
        name: "task",
        description: "Scheduled and manual agent tasks",
        actions: [
          { name: "list", description: "List the tasks", inputSchema: { type: "object", properties: {} } },
          {
            name: "create",
            description: "Create a task",
            inputSchema: {
              type: "object",
              properties: {
                id: { type: "string" },
                title: { type: "string" },
                timezone: { type: "string", description: "IANA time zone" },
              },
              required: ["id", "title"],
            },
          },
        ],
      },
    ],
  };
  await writeFile(join(project, ".downcity", "cache", "cli-schema.json"), JSON.stringify(cache));
  return project;
}

describe("bare downcity", () => {
  test("prints help to stdout, exits 0 and leads with init, start and chat", async () => {
    const run = await cli([]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe("");
    const lines = run.stdout.split("\n");
    expect(lines[0]).toBe("Get started:");
    expect(lines.slice(1, 4).map((line) => line.trim().split(/\s+/)[1])).toEqual(["init", "start", "chat"]);
    expect(run.stdout).toContain("Usage: downcity [options] [command]");
  });
});

describe("--json errors", () => {
  test("a usage error is one JSON object on stderr, exit 2", async () => {
    const run = await cli(["chat", "history", "--bogus", "--json"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "USAGE_ERROR", message: expect.stringContaining("--bogus") },
    });
  });

  // A project whose daemon does not run (outside any project, chat says there is none to start).
  const idleProject = async () => {
    const project = await mkdtemp(join(work, "idle-"));
    await writeFile(join(project, "downcity.json"), "{}\n");
    return project;
  };

  test("a failure keeps its code and field, exit 1", async () => {
    const run = await cli(["chat", "send", "hi", "--json"], await idleProject());
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stderr) as { error: { code: string; message: string; field?: string } };
    expect(report.error).toMatchObject({ code: "NOT_FOUND", field: "rootDir" });
    expect(report.error.message).toContain("downcity start");
  });

  test("without --json the same errors stay plain text", async () => {
    const run = await cli(["chat", "send", "hi"], await idleProject());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^downcity: No daemon runs for /);
  });
});

describe("service commands without a daemon", () => {
  test("say the word is a service command, name downcity start and exit 3", async () => {
    const run = await cli(["task", "--help"]);
    expect(run.code).toBe(3);
    expect(run.stdout).not.toContain("Usage: downcity [options] [command]");
    expect(run.stderr).toContain("service command of the project's daemon, which is not running");
    expect(run.stderr).toContain('"downcity start"');
  });

  test("show the commands of the cached schema, marked as cached", async () => {
    const project = await projectWithCachedSchema();
    const group = await cli(["task", "--help"], project);
    expect(group.code).toBe(3);
    expect(group.stdout).toContain("(cached) task: commands as of 2026-01-02T03:04:05.000Z");
    expect(group.stdout).toContain("Usage: downcity task [options] [command]");
    expect(group.stdout).toMatch(/\n {2}list /);
    expect(group.stdout).toMatch(/\n {2}create /);
    expect(group.stderr).toContain('"task" is a service command of the project\'s daemon');

    const action = await cli(["help", "task", "create"], project);
    expect(action.code).toBe(3);
    expect(action.stdout).toContain("Usage: downcity task create [options] <id> <title>");
    expect(action.stdout).toContain("--timezone <value>");

    const top = await cli(["--help"], project);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain("Service commands (cached 2026-01-02T03:04:05.000Z");
  });

  test("use the schema a real daemon answered with last, once it has stopped", async () => {
    const project = await mkdtemp(join(work, "daemon-"));
    expect((await cli(["init", "."], project)).code).toBe(0);
    const started = await cli(["start"], project);
    try {
      expect(started.code, started.stderr).toBe(0);
      const live = await cli(["shell", "--help"], project);
      expect(live.code, live.stderr).toBe(0);
      expect(live.stdout).not.toContain("(cached)");
      const cache = JSON.parse(
        await readFile(join(project, ".downcity", "cache", "cli-schema.json"), "utf8"),
      ) as { services: Array<{ name: string; actions: Array<{ name: string }> }> };
      const shell = cache.services.find((service) => service.name === "shell");
      expect(shell?.actions.map((action) => action.name)).toContain("list");
    } finally {
      await cli(["stop"], project);
    }
    const offline = await cli(["shell", "--help"], project);
    expect(offline.code).toBe(3);
    expect(offline.stdout).toContain("(cached) shell: commands as of");
    expect(offline.stdout).toMatch(/\n {2}list /);
    expect(offline.stderr).toContain('"downcity start"');
  });

  test("find the cached schema of the project named by --dir", async () => {
    const project = await projectWithCachedSchema();
    const run = await cli(["--dir", project, "task", "--help"]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain("(cached) task: commands as of");
  });

  test("an action reports NOT_RUNNING as JSON with --json, exit 3", async () => {
    const project = await projectWithCachedSchema();
    const run = await cli(["task", "list", "--json"], project);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(JSON.parse(run.stderr)).toEqual({
      error: { code: "NOT_RUNNING", message: expect.stringContaining("downcity start") },
    });
  });

  test("a word the cached schema does not know is an unknown command, exit 2", async () => {
    const project = await projectWithCachedSchema();
    const run = await cli(["taks", "list"], project);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'taks'");
  });
});
