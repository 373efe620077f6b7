import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  agentOff,
  agentOn,
  consolePaths,
  consoleStatus,
  daemonPaths,
  daemonStatus,
  initProject,
  listAgents,
  startConsole,
  stopConsole,
  stopDaemon,
  upsertAgentEntry,
} from "../src/index.js";
import { createTempWorld } from "./temp-project.js";

describe("console and agent registry", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  const projects: string[] = [];
  beforeAll(async () => {
    world = await createTempWorld("dc-console-");
  });
  afterAll(async () => {
    await Promise.all(projects.map((rootDir) => stopDaemon({ rootDir, graceMs: 1000 }).catch(() => {})));
    await stopConsole({ env: world.env, graceMs: 1000 }).catch(() => {});
    await world.cleanup();
  });

  it("refuses agent on without a console or an initialised project", async () => {
    const rootDir = world.project("lonely");
    await initProject(rootDir);
    await expect(agentOn({ rootDir, env: world.env, entry: inject("daemonEntry") })).rejects.toMatchObject({
      code: "NOT_FOUND",
      field: "console",
    });
    const started = await startConsole({ env: world.env, entry: inject("consoleEntry") });
    expect(started.alreadyRunning).toBe(false);
    expect((await startConsole({ env: world.env, entry: inject("consoleEntry") })).alreadyRunning).toBe(true);
    const status = await consoleStatus({ env: world.env });
    expect(status).toMatchObject({ running: true, pid: started.pid, agents: [] });
    const bare = world.project("bare");
    await mkdir(bare, { recursive: true });
    await expect(
      agentOn({ rootDir: bare, env: world.env, entry: inject("daemonEntry") }),
    ).rejects.toMatchObject({
      code: "CONFIG_NOT_FOUND",
    });
  });

  it("turns 5 agents on concurrently and keeps agents.json valid", async () => {
    const roots = Array.from({ length: 5 }, (_, index) => world.project(`agent-${index}`));
    projects.push(...roots);
    await Promise.all(roots.map((rootDir) => initProject(rootDir)));
    const results = await Promise.all(
      roots.map((rootDir) => agentOn({ rootDir, env: world.env, entry: inject("daemonEntry") })),
    );
    const registry = JSON.parse(await readFile(consolePaths(world.env).agentsFile, "utf8"));
    expect(registry.agents.map((entry: { projectRoot: string }) => entry.projectRoot).sort()).toEqual(
      [...roots].sort(),
    );
    for (const result of results) {
      const entry = registry.agents.find(
        (item: { projectRoot: string }) => item.projectRoot === result.projectRoot,
      );
      expect(entry).toMatchObject({
        pid: result.pid,
        startedAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    }
    expect((await listAgents({ env: world.env })).agents).toHaveLength(5);

    const off = await agentOff({ rootDir: roots[0] as string, env: world.env, graceMs: 3000 });
    expect(off).toMatchObject({ stopped: true, deregistered: true });
    expect((await listAgents({ env: world.env })).agents).toHaveLength(4);
  }, 60000);

  it("removes stale entries (dead pid, recycled pid) on console status", async () => {
    const now = new Date().toISOString();
    await upsertAgentEntry(world.env, {
      projectRoot: "/gone",
      pid: 2 ** 22 - 5,
      startedAt: now,
      updatedAt: now,
    });
    await upsertAgentEntry(world.env, {
      projectRoot: "/recycled",
      pid: process.pid,
      startedAt: now,
      updatedAt: now,
      pidStartTime: "1",
    });
    const status = await consoleStatus({ env: world.env });
    expect(status.removedAgents.map((entry) => entry.projectRoot).sort()).toEqual(["/gone", "/recycled"]);
    expect(status.agents).toHaveLength(4);
    const registry = JSON.parse(await readFile(consolePaths(world.env).agentsFile, "utf8"));
    expect(registry.agents).toHaveLength(4);
  });

  it("rolls back the daemon when the registry cannot be written", async () => {
    const rootDir = world.project("rollback");
    projects.push(rootDir);
    await initProject(rootDir);
    const { agentsFile } = consolePaths(world.env);
    const saved = await readFile(agentsFile, "utf8");
    // Root ignores file modes, so make the registry path a directory: the atomic rename onto it fails.
    await rm(agentsFile);
    await mkdir(agentsFile);
    await writeFile(`${agentsFile}/keep`, "");
    await chmod(agentsFile, 0o500);
    try {
      await expect(agentOn({ rootDir, env: world.env, entry: inject("daemonEntry") })).rejects.toMatchObject({
        code: "SERVICE_ERROR",
        message: expect.stringContaining("the daemon was stopped again"),
      });
      expect((await daemonStatus({ rootDir })).running).toBe(false);
      expect(existsSync(daemonPaths(rootDir).pidFile)).toBe(false);
      expect(existsSync(daemonPaths(rootDir).metaFile)).toBe(false);
    } finally {
      await chmod(agentsFile, 0o700);
      await rm(agentsFile, { recursive: true });
      await writeFile(agentsFile, saved);
    }
    const stopped = await stopConsole({ env: world.env });
    expect(stopped.stopped).toBe(true);
    expect((await consoleStatus({ env: world.env })).running).toBe(false);
  }, 30000);
});
