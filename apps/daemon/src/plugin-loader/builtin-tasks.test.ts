import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgentRuntime,
  createServiceRegistry,
  loadConfig,
  type PluginHost,
  setupPlugins,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { tasksPlugin } from "@downcity/tasks";
import { afterEach, describe, expect, it } from "vitest";

describe("built-in tasks plug-in", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it("registers the task service and tools and keeps run histories in run folders", async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "dc-tasks-feature-"));
    cleanups.push(() => rm(rootDir, { recursive: true, force: true }));
    await writeFile(join(rootDir, "downcity.json"), JSON.stringify({}));
    const { config } = await loadConfig(rootDir, { env: process.env });
    const model = createScriptedModel([
      (call) => `did: ${call.messages.at(-1)?.text.trim().split("\n").at(-1)}`,
    ]);
    let host: PluginHost | undefined;
    const runtime = createAgentRuntime({
      rootDir,
      model: model.model,
      logger: silentLogger,
      historyDir: (contextId) => host?.historyDir(contextId),
    });
    cleanups.push(() => runtime.close());
    const registry = createServiceRegistry({ logger: silentLogger });
    host = await setupPlugins({
      rootDir,
      config,
      runtime,
      registry,
      logger: silentLogger,
      plugins: [{ source: "builtin", plugin: tasksPlugin }],
    });
    const setup = host;
    cleanups.push(async () => setup.close());
    await registry.startAll();

    expect(
      registry
        .list()
        .find((service) => service.name === "task")
        ?.actions.map((action) => action.name),
    ).toEqual(["list", "create", "update", "run", "pause", "resume", "delete", "runs"]);
    await registry.invoke("task", "create", {
      id: "hello",
      title: "Hello",
      when: "@daily",
      body: "Say hello",
    });
    const listed = (await registry.invoke("task", "list", {})) as {
      tasks: Array<{ id: string; nextFireAt: string }>;
    };
    expect(listed.tasks[0]?.id).toBe("hello");
    expect(listed.tasks[0]?.nextFireAt).toMatch(/T/);
    const run = (await registry.invoke("task", "run", { id: "hello", wait: true })) as {
      dir: string;
      status: string;
    };
    expect(run.status).toBe("succeeded");
    expect(await readFile(join(run.dir, "output.md"), "utf8")).toBe("did: Say hello\n");
    expect(existsSync(join(run.dir, "messages.jsonl"))).toBe(true);
    expect(existsSync(join(rootDir, ".downcity", "context"))).toBe(false);
  });
});
