import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { loadConfig } from "../config/load-config.js";
import { defineService } from "../service/define-service.js";
import { createServiceRegistry } from "../service/service-registry.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { definePlugin, type PluginSetup } from "./define-plugin.js";
import { type SetupPluginsOptions, setupPlugins } from "./setup-plugins.js";

const temp = useTempDir("downcity-plugins-", "each");

const weather = definePlugin({
  name: "weather",
  version: "1.2.3",
  config: z.strictObject({ unit: z.enum(["C", "F"]).default("C") }),
  setup({ config, contextMeta }) {
    return {
      tools: [
        (run) => ({
          weather_now: tool({
            inputSchema: z.object({ city: z.string() }),
            execute: async ({ city }) => {
              await contextMeta(run.contextId).update((meta) => ({ ...meta, lastCity: city }));
              return { city, temperature: 21, unit: config.unit };
            },
          }),
        }),
      ],
      services: [
        defineService({
          name: "weather",
          actions: { unit: { input: z.object({}), handler: () => ({ unit: config.unit }) } },
        }),
      ],
    };
  },
});

/** Sets `plugins` up in a project whose downcity.json has no plug-in sections. */
const setupWithoutConfig = (
  runtime: ReturnType<typeof createAgentRuntime>,
  registry: ReturnType<typeof createServiceRegistry>,
  plugins: SetupPluginsOptions["plugins"],
) =>
  setupPlugins({
    rootDir: temp.path,
    config: { plugins: [], channels: {} },
    runtime,
    registry,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    plugins,
  });

describe("setupPlugins", () => {
  it("wires a plug-in's tools, services and namespaced context metadata from its validated section", async () => {
    await writeFile(join(temp.path, "downcity.json"), JSON.stringify({ weather: { unit: "F" } }));
    const { config } = await loadConfig(temp.path, { env: {} });
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "weather_now", input: { city: "Oslo" } }] },
      (call) => `it is ${call.messages.at(-1)?.text.match(/"temperature":(\d+)/)?.[1]}`,
    ]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    const registry = createServiceRegistry();
    const host = await setupPlugins({
      rootDir: temp.path,
      config,
      runtime,
      registry,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      plugins: [{ source: "./weather.mjs", plugin: weather }],
    });
    expect(host.status()).toEqual([
      { name: "weather", source: "./weather.mjs", version: "1.2.3", state: "loaded" },
    ]);
    expect(await registry.invoke("weather", "unit", {})).toEqual({ unit: "F" });
    const result = await runtime.send({ contextId: "cli:a", text: "weather?" });
    expect(result.text).toBe("it is 21");
    const meta = JSON.parse(await readFile(join(runtime.history("cli:a").dir ?? "", "meta.json"), "utf8"));
    expect(meta.plugins).toEqual({ weather: { lastCity: "Oslo" } });
    await host.close();
    await runtime.close();
  });

  it("reports a plug-in that fails to load, validate or set up, and still sets up the others", async () => {
    await writeFile(
      join(temp.path, "downcity.json"),
      JSON.stringify({ weather: { unit: "K" }, quiet: { enabled: false } }),
    );
    const { config } = await loadConfig(temp.path, { env: {} });
    const runtime = createAgentRuntime({ rootDir: temp.path });
    const registry = createServiceRegistry();
    const closed: string[] = [];
    const broken = definePlugin({
      name: "broken",
      setup: () => {
        throw new Error("no API key");
      },
    });
    const quiet = definePlugin({ name: "quiet", setup: () => ({ close: () => void closed.push("quiet") }) });
    const fine = definePlugin({ name: "fine", setup: () => ({ close: () => void closed.push("fine") }) });
    const errors: string[] = [];
    const host = await setupPlugins({
      rootDir: temp.path,
      config,
      runtime,
      registry,
      logger: {
        debug() {},
        info() {},
        warn() {},
        error: (_fields, message) => void errors.push(String(message)),
      },
      plugins: [
        { source: "@acme/missing", loadError: new Error("Cannot find package '@acme/missing'") },
        { source: "builtin", plugin: weather },
        { source: "builtin", plugin: broken },
        { source: "builtin", plugin: quiet },
        { source: "builtin", plugin: fine },
      ],
    });
    const byName = Object.fromEntries(host.status().map((status) => [status.name, status]));
    expect(byName["@acme/missing"]).toMatchObject({
      state: "failed",
      error: { message: expect.stringContaining("Cannot find") },
    });
    expect(byName.weather).toMatchObject({
      state: "failed",
      error: { code: "CONFIG_INVALID", field: "weather.unit" },
    });
    expect(byName.broken).toMatchObject({ state: "failed", error: { message: "no API key" } });
    expect(byName.quiet).toMatchObject({ state: "disabled" });
    expect(byName.fine).toMatchObject({ state: "loaded" });
    expect(registry.get("weather")).toBeUndefined();
    expect(errors).toHaveLength(3);
    await host.close();
    expect(closed).toEqual(["fine"]);
    await runtime.close();
  });

  it("reports a plug-in whose setup returns a wrong shape, naming the field, and still sets up the others", async () => {
    const runtime = createAgentRuntime({ rootDir: temp.path });
    const registry = createServiceRegistry();
    const closed: string[] = [];
    const misshapen = definePlugin({
      name: "misshapen",
      // A plain-JS plug-in: `tools` as a tool set instead of the documented array of them.
      setup: () =>
        ({ tools: { my_tool: {} }, close: () => void closed.push("misshapen") }) as unknown as PluginSetup,
    });
    const noProvide = definePlugin({
      name: "no-provide",
      setup: () => ({ promptProviders: [{ id: "p", order: 1 }] }) as unknown as PluginSetup,
    });
    const host = await setupWithoutConfig(runtime, registry, [
      { source: "./misshapen.mjs", plugin: misshapen },
      { source: "./no-provide.mjs", plugin: noProvide },
      { source: "builtin", plugin: weather },
    ]);
    const [first, second, third] = host.status();
    expect(first).toMatchObject({
      name: "misshapen",
      state: "failed",
      error: {
        code: "PLUGIN_FAILED",
        field: "tools",
        message: expect.stringContaining("tools: expected an array"),
      },
    });
    expect(second).toMatchObject({
      state: "failed",
      error: { field: "promptProviders[0].provide", message: expect.stringContaining("expected a function") },
    });
    expect(third).toMatchObject({ name: "weather", state: "loaded" });
    // What it set up before the bad return is released.
    expect(closed).toEqual(["misshapen"]);
    await host.close();
    await runtime.close();
  });

  it("refuses a second plug-in of the same name and a service name already taken", async () => {
    const runtime = createAgentRuntime({ rootDir: temp.path });
    const registry = createServiceRegistry();
    registry.register(defineService({ name: "weather", actions: {} }));
    const host = await setupWithoutConfig(runtime, registry, [
      { source: "a", plugin: weather },
      { source: "b", plugin: weather },
    ]);
    expect(host.status().map((status) => [status.source, status.state, status.error?.code])).toEqual([
      ["a", "failed", "CONFLICT"],
      ["b", "failed", "CONFLICT"],
    ]);
    await runtime.close();
  });
});
