import type {
  AgentRuntime,
  ChannelHost,
  DowncityConfig,
  DowncityStore,
  Logger,
  PluginEntry,
  PluginHost,
  RunJournal,
  ServiceRegistry,
  UsageStore,
} from "@downcity/core";
import type { CommandCheck, ShellEngine, ShellStartResult } from "@downcity/shell";
import type { LanguageModel, ToolSet } from "ai";
import type { Approvals } from "../approvals/approvals-part.js";
import type { HistoryFolders } from "../runtime/history-folders.js";
import type { ShellCredentials } from "../security/create-shell-credentials.js";
import type { ForeignShellCalls } from "../services/shell-service.js";
import type { RunTelemetry } from "../telemetry/run-telemetry.js";
import type { DaemonHttp } from "./daemon-http.js";
import { componentOf } from "./define-component.js";

/** What the daemon starts from: the loaded project, its logger and the caller's overrides. */
export interface DaemonContext {
  rootDir: string;
  env: Record<string, string | undefined>;
  config: DowncityConfig;
  /** The environment over the project's .env: provider keys may live in either. */
  configEnv: Record<string, string | undefined>;
  logger: Logger;
  listen: { host: string; port: number };
  /** Replaces the model built from `llm`. */
  model?: LanguageModel;
  closeGraceMs: number;
  /** The built-in plug-ins and those of downcity.json, loaded (failures kept as entries). */
  plugins: readonly PluginEntry[];
}

/** Where `downcity …` inside a shell reaches this daemon: the port is filled in after listen, the token issuer by the credentials. */
export interface ShellCallback {
  host: string;
  port?: number;
  token?: (session: { shellId: string; contextId?: string }) => string | undefined;
}

/** Every part of a running daemon, by the name of the component that provides it. */
export interface DaemonParts {
  context: DaemonContext;
  /** The configured shared store; `undefined` when downcity.json has no `store`. */
  store: DowncityStore | undefined;
  runtime: {
    runtime: AgentRuntime;
    model?: LanguageModel;
    historyFolders: HistoryFolders;
    /** Where runs are journaled: the store's journal, else `.downcity/runs/`. */
    journal: RunJournal;
    /** This process's name in the run journal and the channel host (`<host>:<pid>:<random>`). */
    workerId: string;
    /** The usage log: the runtime's model appends what runs' step events do not (compaction, memory, cut-off steps). */
    usageLog: UsageStore;
  };
  usage: undefined;
  /** OpenTelemetry export; `undefined` when downcity.json has no `telemetry.otlp`. */
  telemetry: RunTelemetry | undefined;
  /**
   * `checks`: more command checks, run after the skills' (approvals add theirs). `toolWrappers`:
   * applied to each run's shell tools (the jobs component routes calls on other workers' sessions).
   * `afterStart`: awaited after every session start, before it returns (the jobs component pins its chat).
   * `foreign`: set by the jobs component with a shared store; the shell service routes calls on
   * another worker's session with it, as the tools do.
   */
  shell: {
    engine: ShellEngine;
    callback: ShellCallback;
    checks: CommandCheck[];
    toolWrappers: Array<(tools: ToolSet, run: { contextId: string }) => ToolSet>;
    afterStart: Array<(started: ShellStartResult) => Promise<void>>;
    foreign: ForeignShellCalls;
  };
  retention: undefined;
  approvals: Approvals;
  credentials: ShellCredentials;
  channels: ChannelHost;
  services: ServiceRegistry;
  http: DaemonHttp;
  runs: undefined;
  jobs: undefined;
  plugins: PluginHost;
  intake: { host: string; port: number };
}

/** Declares one component of the daemon (see ../components/). */
export const daemonComponent = componentOf<DaemonParts>();
