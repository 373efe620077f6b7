import { createServiceRegistry, setupPlugins, silentLogger } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { memoryPlugin } from "@downcity/memory";
import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { useBuiltinPluginBed } from "./builtin-plugin-test-bed.js";

describe("built-in memory plug-in", () => {
  const bed = useBuiltinPluginBed("dc-memory-feature-");
  const { cleanups } = bed;

  it("memorises after runs in the background and serves the memory service, tools and provider", async () => {
    const { rootDir, config } = await bed.project({ memory: { threshold: 2 } });
    const model = createScriptedModel([
      "Hi Ada.",
      JSON.stringify({ entries: [{ kind: "fact", text: "The user is Ada.", sourceMessageIds: [] }] }),
      (call) => ({
        text: call.messages.some((message) => message.text.includes("The user is Ada.")) ? "Ada!" : "?",
      }),
    ]);
    const runtime = bed.runtime({ rootDir, model: model.model });
    const { registry } = await bed.setup({
      rootDir,
      config,
      runtime,
      model: model.model,
      plugin: memoryPlugin,
    });

    await runtime.send({ contextId: "console:main", text: "I am Ada." });
    type Status = { entries?: number; pending?: number };
    const status = await until(
      async () => {
        const now = (await registry.invoke("memory", "status", { contextId: "console:main" })) as Status;
        return now.entries === 1 && now.pending === 0 ? now : undefined;
      },
      "the memory to settle at one entry",
      5000,
    );
    expect(status).toMatchObject({ entries: 1, pending: 0 });
    expect(model.calls[0]?.tools).toEqual(expect.arrayContaining(["memory_remember", "memory_search"]));
    await expect(runtime.send({ contextId: "console:main", text: "Who am I?" })).resolves.toMatchObject({
      text: "Ada!",
    });
  });

  it("adds nothing when memory is disabled, and skips model work without a model", async () => {
    const { rootDir } = await bed.project({});
    const runtime = bed.runtime({ rootDir });
    const registry = createServiceRegistry({ logger: silentLogger });
    const disabled = await setupPlugins({
      rootDir,
      config: { plugins: [], channels: {}, memory: { enabled: false } },
      runtime,
      registry,
      logger: silentLogger,
      plugins: [{ source: "builtin", plugin: memoryPlugin }],
    });
    expect(disabled.status()).toEqual([expect.objectContaining({ name: "memory", state: "disabled" })]);
    expect(registry.get("memory")).toBeUndefined();
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (_fields: unknown, message?: string) => warnings.push(message ?? ""),
    };
    const enabled = await setupPlugins({
      rootDir,
      config: { plugins: [], channels: {} },
      runtime,
      registry,
      logger,
      plugins: [{ source: "builtin", plugin: memoryPlugin }],
    });
    cleanups.push(async () => enabled.close());
    expect(registry.list().map((service) => service.name)).toEqual(["memory"]);
    expect(warnings.join("\n")).toContain('"llm"');
  });
});
