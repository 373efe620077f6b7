import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  type AgentRuntimeOptions,
  createAgentRuntime,
  createServiceRegistry,
  type DowncityConfig,
  loadConfig,
  type Plugin,
  setupPlugins,
  silentLogger,
} from "@downcity/core";
import type { LanguageModel } from "ai";
import { afterEach } from "vitest";

/**
 * What the built-in plug-in tests share: a temporary project, a runtime and one plug-in set up
 * over them; everything is closed and removed after each test, in reverse order.
 */
export function useBuiltinPluginBed(prefix: string) {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    /** A temporary project whose downcity.json is `file`, and its configuration as the daemon loads it. */
    async project(file: unknown, env: Record<string, string | undefined> = process.env) {
      const rootDir = await mkdtemp(join(tmpdir(), prefix));
      cleanups.push(() => rm(rootDir, { recursive: true, force: true }));
      await writeFile(join(rootDir, "downcity.json"), JSON.stringify(file));
      const { config } = await loadConfig(rootDir, { env });
      return { rootDir, config };
    },
    runtime(options: AgentRuntimeOptions): AgentRuntime {
      const runtime = createAgentRuntime({ logger: silentLogger, ...options });
      cleanups.push(() => runtime.close());
      return runtime;
    },
    async setup(options: {
      rootDir: string;
      config: DowncityConfig;
      runtime: AgentRuntime;
      plugin: Plugin;
      model?: LanguageModel;
    }) {
      const registry = createServiceRegistry({ logger: silentLogger });
      const host = await setupPlugins({
        rootDir: options.rootDir,
        config: options.config,
        runtime: options.runtime,
        registry,
        logger: silentLogger,
        ...(options.model ? { model: options.model } : {}),
        plugins: [{ source: "builtin", plugin: options.plugin }],
      });
      cleanups.push(() => host.close());
      return { registry, host };
    },
  };
}
