import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PluginHost } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { tasksPlugin } from "@downcity/tasks";
import { describe, expect, it } from "vitest";
import { useBuiltinPluginBed } from "./builtin-plugin-test-bed.js";

describe("built-in tasks plug-in", () => {
  const bed = useBuiltinPluginBed("dc-tasks-feature-");

  it("registers the task service and tools and keeps run histories in run folders", async () => {
    const { rootDir, config } = await bed.project({});
    const model = createScriptedModel([
      (call) => `did: ${call.messages.at(-1)?.text.trim().split("\n").at(-1)}`,
    ]);
    let host: PluginHost | undefined;
    const runtime = bed.runtime({
      rootDir,
      model: model.model,
      historyDir: (contextId) => host?.historyDir(contextId),
    });
    const setup = await bed.setup({ rootDir, config, runtime, plugin: tasksPlugin });
    host = setup.host;
    const { registry } = setup;
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
