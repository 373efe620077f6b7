import type {
  AgentRuntime,
  DowncityConfig,
  Logger,
  PromptProvider,
  ServiceDefinition,
  ServiceRegistry,
  ToolSource,
} from "@downcity/core";
import type { LanguageModel } from "ai";

/** What a feature package gets from the daemon when it is wired in. */
export interface FeatureContext {
  rootDir: string;
  config: DowncityConfig;
  runtime: AgentRuntime;
  /** The project's model, when `llm` is configured (features that call the model need it). */
  model?: LanguageModel;
  registry: ServiceRegistry;
  logger: Logger;
}

/** What a feature adds to the daemon: services (HTTP + CLI), agent tools, prompt providers, a shutdown hook. */
export interface FeatureSetup {
  services?: ServiceDefinition[];
  tools?: ToolSource[];
  promptProviders?: PromptProvider[];
  /** Called on daemon shutdown, before the runtime closes. */
  close?: () => Promise<void>;
}

/** One optional layer of the daemon (mcp, skills, memory, tasks), each in its own file. */
export interface Feature {
  name: string;
  /** Maps a context id to a custom history folder (tasks keep run histories in their run folders). */
  historyDir?: (rootDir: string, contextId: string) => string | undefined;
  setup(context: FeatureContext): Promise<FeatureSetup>;
}
