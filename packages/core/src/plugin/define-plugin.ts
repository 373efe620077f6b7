import type { LanguageModel } from "ai";
import type { z } from "zod";
import type { ToolSource } from "../agent/agent-runtime.js";
import type { Logger } from "../logger/logger.js";
import type { DowncityPaths } from "../paths/downcity-paths.js";
import type { PromptProvider } from "../prompt/prompt-provider.js";
import type { ServiceDefinition } from "../service/define-service.js";
import type { ServiceRegistry } from "../service/service-registry.js";
import type { DowncityStore } from "../store/downcity-store.js";
import type { InboxInput } from "../store/inbox-store.js";
import type { ContextMeta } from "./context-meta.js";
import type { PluginRuntime } from "./plugin-runtime.js";

/** What a plug-in's `setup` receives. */
export interface PluginContext<Config = unknown> {
  rootDir: string;
  /** The plug-in's own `downcity.json` section, validated by its `config` schema (`{}` parsed when absent). */
  config: Config;
  /** Start runs, read histories, watch run events: the runtime as far as a plug-in needs it. */
  runtime: PluginRuntime;
  /** The project's model, when `llm` is configured. */
  model?: LanguageModel;
  /** A logger whose lines carry `plugin: <name>`. */
  logger: Logger;
  registry: ServiceRegistry;
  paths: DowncityPaths;
  /** Per-context metadata of this plug-in, kept in the context's `meta.json` under `plugins.<name>`. */
  contextMeta(contextId: string): ContextMeta;
  /** The store of downcity.json's `store` section, when one is configured (several workers share it). */
  store?: DowncityStore;
  /**
   * Accepts an internal event into the inbox (see `internalInboxEvent`), so a notice runs as a
   * claimed event of its context; absent when the host has no inbox (then use `runtime.send`).
   */
  submit?: (input: InboxInput) => Promise<unknown>;
}

/** What a plug-in adds to the agent; every field is optional. */
export interface PluginSetup {
  /** Services: HTTP routes, derived CLI commands and agent-callable actions. */
  services?: ServiceDefinition[];
  tools?: ToolSource[];
  promptProviders?: PromptProvider[];
  /** Maps a context id to a custom history folder; `undefined` leaves it to others. */
  historyDir?: (contextId: string) => string | undefined;
  /** Called on shutdown, in reverse setup order, before the runtime closes. */
  close?: () => Promise<void> | void;
}

/** A plug-in: a name (its config section), an optional zod schema of that section, and `setup`. */
export interface Plugin<Schema extends z.ZodObject = z.ZodObject> {
  readonly name: string;
  readonly config?: Schema;
  /** Shown by `downcity plugins list`. */
  readonly version?: string;
  setup(context: PluginContext<z.output<Schema>>): Promise<PluginSetup> | PluginSetup;
}

const pluginNamePattern = /^[a-z][a-z0-9-]{0,31}$/;

/** Declares a plug-in; its `setup` receives the section typed from `config`. */
export function definePlugin<Schema extends z.ZodObject = z.ZodObject>(
  plugin: Plugin<Schema>,
): Plugin<Schema> {
  if (!pluginNamePattern.test(plugin.name)) {
    throw new TypeError(
      `plug-in name "${plugin.name}" must match ${pluginNamePattern} (it is also its downcity.json section)`,
    );
  }
  if (typeof plugin.setup !== "function")
    throw new TypeError(`plug-in "${plugin.name}" has no setup function`);
  return Object.freeze({ ...plugin });
}

/** True when `value` has the shape `definePlugin` returns (plug-ins loaded from files are checked with it). */
export function isPlugin(value: unknown): value is Plugin {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Plugin>;
  return typeof candidate.name === "string" && typeof candidate.setup === "function";
}
