import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { definePlugin, type PluginSetup } from "@downcity/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDaemonClient, daemonStatus, ensureToken, initProject } from "../src/index.js";
import { runDaemon } from "../src/server.js";
import { createTempWorld } from "./temp-project.js";

describe("downcity.json sections and plug-ins at start-up", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  beforeAll(async () => {
    world = await createTempWorld("dc-sections-");
  });
  afterAll(async () => {
    await world.cleanup();
  });

  const project = async (name: string, extra: Record<string, unknown>) => {
    const rootDir = world.project(name);
    await initProject(rootDir);
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(configPath, JSON.stringify({ ...config, ...extra }));
    return rootDir;
  };

  it("refuses to start with a section no plug-in claims, naming it and the installed plug-ins", async () => {
    const rootDir = await project("unclaimed", { jira: { url: "https://example.com" } });
    await expect(runDaemon({ rootDir, env: world.env, handleSignals: false })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "jira",
      message: expect.stringMatching(/"jira".*Installed plug-ins: mcp, skills, memory, tasks/),
    });
    expect((await daemonStatus({ rootDir })).running).toBe(false);
  });

  it("starts when the section may belong to a plug-in that failed to load, reporting that plug-in", async () => {
    const rootDir = await project("failed-owner", { plugins: ["./plugins/jira.mjs"], jira: {} });
    const daemon = await runDaemon({ rootDir, env: world.env, handleSignals: false });
    try {
      const status = await daemonStatus({ rootDir });
      expect(status.plugins?.find((plugin) => plugin.source === "./plugins/jira.mjs")).toMatchObject({
        state: "failed",
        error: { message: expect.stringContaining("jira.mjs") },
      });
      expect(
        status.plugins?.filter((plugin) => plugin.state === "loaded").map((plugin) => plugin.name),
      ).toEqual(["mcp", "skills", "memory", "tasks"]);
    } finally {
      await daemon.close();
    }
  });

  it("turns a built-in plug-in off with enabled false, and rejects a bad field of its section by name", async () => {
    const rootDir = await project("disabled", { memory: { enabled: false }, skills: { roots: "nope" } });
    const daemon = await runDaemon({ rootDir, env: world.env, handleSignals: false });
    try {
      const plugins = (await daemonStatus({ rootDir })).plugins ?? [];
      expect(plugins.find((plugin) => plugin.name === "memory")?.state).toBe("disabled");
      expect(plugins.find((plugin) => plugin.name === "skills")).toMatchObject({
        state: "failed",
        error: { code: "CONFIG_INVALID", field: "skills.roots" },
      });
      const schema = JSON.parse(
        await readFile(join(rootDir, ".downcity", "schema", "downcity.schema.json"), "utf8"),
      );
      expect(Object.keys(schema.properties)).toEqual(
        expect.arrayContaining(["llm", "start", "shell", "mcp", "skills", "memory", "tasks", "channels"]),
      );
    } finally {
      await daemon.close();
    }
  });
  it("reports a plug-in whose setup returns a wrong shape as failed, naming the field, and starts", async () => {
    const rootDir = await project("misshapen", {});
    const misshapen = definePlugin({
      name: "misshapen",
      // `tools` as one tool set instead of the documented array of them.
      setup: () => ({ tools: { my_tool: {} } }) as unknown as PluginSetup,
    });
    const events: string[] = [];
    const recorder = (name: string) =>
      definePlugin({
        name,
        setup: () => {
          events.push(`setup ${name}`);
          return { close: () => void events.push(`close ${name}`) };
        },
      });
    const daemon = await runDaemon({
      rootDir,
      env: world.env,
      handleSignals: false,
      plugins: [recorder("first"), misshapen, recorder("last")],
    });
    try {
      const plugins = (await daemonStatus({ rootDir })).plugins ?? [];
      expect(plugins.find((plugin) => plugin.name === "misshapen")).toMatchObject({
        state: "failed",
        error: {
          code: "PLUGIN_FAILED",
          field: "tools",
          message: expect.stringContaining("tools: expected an array"),
        },
      });
      expect(plugins.filter((plugin) => plugin.state === "loaded").map((plugin) => plugin.name)).toEqual([
        "first",
        "last",
      ]);
      const client = createDaemonClient({
        host: daemon.host,
        port: daemon.port,
        token: await ensureToken(world.env),
      });
      expect((await client.plugins()).plugins.map((plugin) => [plugin.name, plugin.state])).toEqual([
        ["first", "loaded"],
        ["misshapen", "failed"],
        ["last", "loaded"],
      ]);
    } finally {
      await daemon.close();
    }
    // The plug-in set up last is closed first.
    expect(events).toEqual(["setup first", "setup last", "close last", "close first"]);
  });
});
