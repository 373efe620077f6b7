import type { Logger, Plugin } from "@downcity/core";
import type { LanguageModel } from "ai";

/** Options of `runDaemon`. */
export interface RunDaemonOptions {
  rootDir: string;
  /** Overrides `start.port` of downcity.json (0 = ephemeral). */
  port?: number;
  /** Overrides `start.host` (default 127.0.0.1). */
  host?: string;
  /** Aborting it shuts the daemon down gracefully. */
  signal?: AbortSignal;
  /** Shut down on SIGTERM/SIGINT [true]. */
  handleSignals?: boolean;
  env?: Record<string, string | undefined>;
  /** Replaces the model built from `llm` (benchmarks, embedding hosts). */
  model?: LanguageModel;
  /** Replaces the file logger. */
  logger?: Logger;
  /** Replaces the built-in plug-ins (the `plugins` entries of downcity.json still load). */
  plugins?: readonly Plugin[];
  /** How long running runs may go on at shutdown before they are aborted [0: at once]. */
  closeGraceMs?: number;
}

/** A listening daemon. */
export interface RunningDaemon {
  host: string;
  port: number;
  pid: number;
  /** Resolves once the daemon has shut down (by close(), the signal or SIGTERM/SIGINT). */
  closed: Promise<void>;
  close(): Promise<void>;
}
