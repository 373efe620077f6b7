import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createAgentRuntime,
  createFileMemoryStore,
  createServiceRegistry,
  type DowncityStore,
  type MemoryStore,
  setupPlugins,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, describe, expect, it } from "vitest";
import { memoryPlugin } from "./memory-plugin.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the memory plug-in", () => {
  it("reads a context's memory once per run: maintenance checks with what the prompt read", async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-memory-plugin-"));
    const files = createFileMemoryStore({ rootDir });
    const reads: string[] = [];
    const memory: MemoryStore = {
      read(scope) {
        if (scope.kind === "context") reads.push(scope.contextId);
        return files.read(scope);
      },
      update: (scope, change) => files.update(scope, change),
      contexts: () => files.contexts(),
    };
    const model = createScriptedModel(["Hello.", "Hello again."]);
    const runtime = createAgentRuntime({ rootDir, model: model.model, logger: silentLogger });
    // The plug-in uses only the store's memory.
    const store = { kind: "counting", memory } as unknown as DowncityStore;
    const host = await setupPlugins({
      rootDir,
      config: { plugins: [], channels: {} },
      runtime,
      registry: createServiceRegistry({ logger: silentLogger }),
      logger: silentLogger,
      model: model.model,
      plugins: [{ source: "builtin", plugin: memoryPlugin }],
      store,
    });
    cleanups.push(async () => {
      await runtime.close();
      await rm(rootDir, { recursive: true, force: true });
    });
    await runtime.send({ contextId: "console:main", text: "Hi." });
    await runtime.send({ contextId: "console:main", text: "Hi again." });
    // Closing waits for the maintenance the runs started.
    await host.close();
    // One read per run (the prompt's); maintenance below the threshold adds none (was 4).
    expect(reads).toEqual(["console:main", "console:main"]);
  });
});
