import type { LanguageModel } from "ai";
import type { DowncityConfig } from "../config/config-schema.js";
import { readConfigSection } from "../config/config-sections.js";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFields, type Logger } from "../logger/logger.js";
import { downcityPaths } from "../paths/downcity-paths.js";
import type { ServiceRegistry } from "../service/service-registry.js";
import type { DowncityStore } from "../store/downcity-store.js";
import type { InboxInput } from "../store/inbox-store.js";
import { createContextMeta } from "./context-meta.js";
import type { Plugin, PluginSetup } from "./define-plugin.js";
import { type PluginHostRuntime, pluginRuntimeOf } from "./plugin-runtime.js";
import { parsePluginSetup } from "./plugin-setup-schema.js";

/** A plug-in to set up, or the reason it could not even be loaded. */
export interface PluginEntry {
  /** Where it came from: `builtin`, a package name, or a `./file`. */
  source: string;
  plugin?: Plugin;
  /** Why loading failed (the plug-in is then reported `failed` and skipped). */
  loadError?: unknown;
}

/** One row of `downcity plugins list`. */
export interface PluginStatus {
  name: string;
  source: string;
  version?: string;
  state: "loaded" | "disabled" | "failed";
  error?: { code: string; message: string; field?: string };
}

/** Options of `setupPlugins`. */
export interface SetupPluginsOptions {
  rootDir: string;
  config: DowncityConfig;
  /** The runtime the plug-ins' tools and prompt providers join; plug-ins themselves see only a `PluginRuntime`. */
  runtime: PluginHostRuntime;
  registry: ServiceRegistry;
  logger: Logger;
  model?: LanguageModel;
  plugins: readonly PluginEntry[];
  /** Handed to every plug-in (see `PluginContext.store`). */
  store?: DowncityStore;
  /** Handed to every plug-in (see `PluginContext.submit`). */
  submit?: (input: InboxInput) => Promise<unknown>;
}

/** The set-up plug-ins of a host: their status, their history folders, and one shutdown hook. */
export interface PluginHost {
  status(): PluginStatus[];
  /** The first plug-in history folder for `contextId`, if any plug-in claims it. */
  historyDir(contextId: string): string | undefined;
  /** Closes the plug-ins in reverse setup order; errors are logged, never thrown. */
  close(): Promise<void>;
}

const childLogger = (logger: Logger, plugin: string): Logger => ({
  debug: (fields, message) => logger.debug({ plugin, ...fields }, message),
  info: (fields, message) => logger.info({ plugin, ...fields }, message),
  warn: (fields, message) => logger.warn({ plugin, ...fields }, message),
  error: (fields, message) => logger.error({ plugin, ...fields }, message),
});

const errorSummary = (error: unknown): NonNullable<PluginStatus["error"]> => {
  if (DowncityError.isInstance(error))
    return { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) };
  return { code: "PLUGIN_FAILED", message: error instanceof Error ? error.message : String(error) };
};

/**
 * Validates each plug-in's section, calls `setup` in order, checks what it returns and wires that
 * into the runtime and registry. A plug-in that fails (to load, validate, set up, or return the
 * documented shape) is reported and skipped; it never stops the others.
 */
export async function setupPlugins(options: SetupPluginsOptions): Promise<PluginHost> {
  const { logger } = options;
  const statuses: PluginStatus[] = [];
  const closes: Array<{ name: string; close: () => Promise<void> | void }> = [];
  const historyDirs: Array<(contextId: string) => string | undefined> = [];
  const names = new Set<string>();

  for (const entry of options.plugins) {
    const plugin = entry.plugin;
    const name = plugin?.name ?? entry.source;
    const base = { name, source: entry.source, ...(plugin?.version ? { version: plugin.version } : {}) };
    try {
      if (!plugin) throw entry.loadError ?? new Error("the module exports no plug-in");
      if (names.has(plugin.name))
        throw new DowncityError(
          "CONFLICT",
          `Two plug-ins are named "${plugin.name}"; the second (${entry.source}) is skipped.`,
          { field: "plugins" },
        );
      names.add(plugin.name);
      const setup = await setupOne(plugin, options);
      if (!setup) {
        statuses.push({ ...base, state: "disabled" });
        logger.info({ plugin: plugin.name }, "plug-in disabled in downcity.json");
        continue;
      }
      for (const service of setup.services ?? []) options.registry.register(service);
      for (const tools of setup.tools ?? []) options.runtime.addTools(tools);
      for (const provider of setup.promptProviders ?? []) options.runtime.addPromptProvider(provider);
      if (setup.historyDir) historyDirs.push(setup.historyDir);
      if (setup.close) closes.push({ name: plugin.name, close: setup.close });
      statuses.push({ ...base, state: "loaded" });
    } catch (error) {
      statuses.push({ ...base, state: "failed", error: errorSummary(error) });
      logger.error({ plugin: name, source: entry.source, ...errorFields(error) }, "plug-in failed; skipped");
    }
  }

  return {
    status: () => statuses.map((status) => ({ ...status })),
    historyDir(contextId) {
      for (const dir of historyDirs) {
        const found = dir(contextId);
        if (found) return found;
      }
      return undefined;
    },
    async close() {
      for (const { name, close } of [...closes].reverse()) {
        try {
          await close();
        } catch (error) {
          logger.warn({ plugin: name, ...errorFields(error) }, "plug-in close failed");
        }
      }
    },
  };
}

/**
 * Calls one plug-in's `setup` with its validated section and checks the result before anything is
 * wired; `undefined` when its section disables it. On a failure after `setup` ran, its `close` runs.
 */
async function setupOne(plugin: Plugin, options: SetupPluginsOptions): Promise<PluginSetup | undefined> {
  const section = readConfigSection(options.config, plugin);
  if (!section.enabled) return undefined;
  const paths = downcityPaths(options.rootDir);
  const runtime = pluginRuntimeOf(options.runtime);
  const returned: unknown = await plugin.setup({
    rootDir: paths.rootDir,
    config: section.value,
    runtime,
    ...(options.model ? { model: options.model } : {}),
    logger: childLogger(options.logger, plugin.name),
    registry: options.registry,
    paths,
    contextMeta: (contextId) => createContextMeta(runtime.history(contextId), plugin.name),
    ...(options.store ? { store: options.store } : {}),
    ...(options.submit ? { submit: options.submit } : {}),
  });
  try {
    const setup = parsePluginSetup(plugin.name, returned);
    const serviceNames = new Set<string>();
    for (const service of setup.services ?? []) {
      if (options.registry.get(service.name) || serviceNames.has(service.name))
        throw new DowncityError(
          "CONFLICT",
          `Service "${service.name}" is already registered by another plug-in.`,
          { field: plugin.name },
        );
      serviceNames.add(service.name);
    }
    return setup;
  } catch (error) {
    const close = (returned as { close?: unknown } | undefined)?.close;
    if (typeof close === "function")
      await Promise.resolve()
        .then(() => close())
        .catch(() => {});
    throw error;
  }
}
