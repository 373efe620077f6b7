import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import {
  acquireFileLock,
  createAgentRuntime,
  createServiceRegistry,
  DowncityError,
  errorFields,
  type Logger,
  loadConfig,
  processStartTime,
  type ToolSource,
  withRequestContext,
} from "@downcity/core";
import { createShellEngine } from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import type { LanguageModel } from "ai";
import { buildDaemonApp } from "./app.js";
import type { Feature } from "./features/feature.js";
import { features as defaultFeatures } from "./features/index.js";
import { createFileLogger } from "./logging/create-file-logger.js";
import { removeDaemonMeta, writeDaemonMeta } from "./process/daemon-meta.js";
import { daemonPaths } from "./process/daemon-paths.js";
import { createModel } from "./runtime/create-model.js";
import { wireShellExitFollowUp } from "./runtime/shell-exit-follow-up.js";
import { createChatService } from "./services/chat-service.js";
import { createShellService } from "./services/shell-service.js";
import { ensureToken } from "./token/ensure-token.js";
import { daemonVersion } from "./version.js";

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
  features?: Feature[];
  /** How long running lanes may finish on shutdown [5 s]. */
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

/** Loads the project, wires runtime, shell, features and services, listens, and records daemon.pid/daemon.json. */
export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const rootDir = resolve(options.rootDir);
  const env = options.env ?? process.env;
  const paths = daemonPaths(rootDir);
  const { config } = await loadConfig(rootDir, { env });
  const fileLogger = options.logger ? undefined : createFileLogger({ logsDir: paths.logsDir });
  // Every line written inside a run (runtime, tools, features, services) carries its contextId and requestId.
  const logger = withRequestContext(options.logger ?? (fileLogger?.logger as Logger));
  let releaseLock: (() => Promise<void>) | undefined;
  try {
    await mkdir(paths.debugDir, { recursive: true });
    releaseLock = await acquireFileLock(paths.lockFile, { timeoutMs: 300 });
  } catch (error) {
    await fileLogger?.close();
    if (!DowncityError.isInstance(error)) throw error;
    throw new DowncityError(
      "CONFLICT",
      `Another daemon already runs for ${rootDir}; stop it first (downcity stop)`,
      {
        cause: error,
      },
    );
  }
  // Shutdown order: features first (they may still use the runtime), then the runtime, then the shell.
  const featureCloses: Array<() => Promise<void> | void> = [];
  const coreCloses: Array<() => Promise<void> | void> = [];
  const cleanups = () => [...[...featureCloses].reverse(), ...coreCloses];
  try {
    const token = await ensureToken(env);
    const choice = options.model ? { model: options.model } : await createModel(config.llm, env);
    const server: { host: string; port?: number; token: string } = {
      host: options.host ?? config.start?.host ?? "127.0.0.1",
      token,
    };
    const engine = createShellEngine({
      rootDir,
      env,
      ...(config.shell?.secretEnv ? { secretEnv: config.shell.secretEnv } : {}),
      // Read at each spawn, so the port filled in after listen reaches every child.
      server,
      ...(config.shell?.maxSessions ? { limits: { maxSessions: config.shell.maxSessions } } : {}),
    });
    coreCloses.push(() => engine.closeAll({ grace_ms: 1000 }));
    const features = options.features ?? defaultFeatures;
    const shellTools: ToolSource = (run) =>
      createShellTools(engine, { contextId: run.contextId, requestId: run.requestId });
    const runtime = createAgentRuntime({
      rootDir,
      ...(choice.model ? { model: choice.model } : { modelHint: choice.hint }),
      tools: [shellTools],
      maxConcurrency: config.services?.chat?.queue?.maxConcurrency ?? 4,
      ...(config.context?.maxSteps ? { maxSteps: config.context.maxSteps } : {}),
      ...(config.context?.history ? { history: config.context.history } : {}),
      logger,
      historyDir: (contextId) => {
        for (const feature of features) {
          const dir = feature.historyDir?.(rootDir, contextId);
          if (dir) return dir;
        }
        return undefined;
      },
      closeGraceMs: options.closeGraceMs ?? 5000,
    });
    coreCloses.unshift(() => runtime.close());
    const registry = createServiceRegistry({ logger });
    registry.register(createChatService(runtime));
    registry.register(createShellService(engine));
    for (const feature of features) {
      const setup = await feature.setup({
        rootDir,
        config,
        runtime,
        ...(choice.model ? { model: choice.model } : {}),
        registry,
        logger,
      });
      for (const service of setup.services ?? []) registry.register(service);
      for (const tools of setup.tools ?? []) runtime.addTools(tools);
      for (const provider of setup.promptProviders ?? []) runtime.addPromptProvider(provider);
      if (setup.close) featureCloses.push(setup.close);
    }
    const version = daemonVersion();
    const app = buildDaemonApp({
      runtime,
      registry,
      token,
      logger,
      version,
      ...(config.name ? { name: config.name } : {}),
    });
    await app.listen({ host: server.host, port: options.port ?? config.start?.port ?? 0 });
    const address = app.server.address() as AddressInfo;
    server.port = address.port;
    const unwire = wireShellExitFollowUp({ engine, runtime, logger });
    const recovered = await engine.recover();
    if (recovered.lost.length + recovered.replayed.length > 0)
      logger.info(recovered, "shell sessions recovered");
    await registry.startAll();
    const startedAt = new Date().toISOString();
    await writeDaemonMeta(rootDir, {
      pid: process.pid,
      host: server.host,
      port: address.port,
      startedAt,
      version,
      pidStartTime: processStartTime(process.pid),
    });
    logger.info(
      { host: server.host, port: address.port, version, model: Boolean(choice.model) },
      "daemon listening",
    );

    let closing: Promise<void> | undefined;
    let resolveClosed: () => void = () => {};
    const closed = new Promise<void>((done) => {
      resolveClosed = done;
    });
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "shutting down");
      void close();
    };
    const close = (): Promise<void> => {
      closing ??= (async () => {
        if (options.handleSignals !== false) {
          process.off("SIGTERM", onSignal);
          process.off("SIGINT", onSignal);
        }
        const appClosed = app.close();
        for (const cleanup of cleanups()) {
          try {
            await cleanup();
          } catch (error) {
            logger.warn(errorFields(error), "shutdown step failed");
          }
        }
        // Backstop: the replies of finished runs have had their chance; drop what still hangs on.
        const backstop = setTimeout(() => app.server.closeAllConnections(), 2000);
        await appClosed;
        clearTimeout(backstop);
        unwire();
        await registry.stopAll();
        await removeDaemonMeta(rootDir, process.pid);
        await releaseLock?.();
        logger.info({}, "daemon stopped");
        await fileLogger?.close();
        resolveClosed();
      })();
      return closing;
    };
    if (options.handleSignals !== false) {
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
    }
    if (options.signal) {
      if (options.signal.aborted) void close();
      else options.signal.addEventListener("abort", () => void close(), { once: true });
    }
    return { host: server.host, port: address.port, pid: process.pid, closed, close };
  } catch (error) {
    for (const cleanup of cleanups())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => {});
    logger.error(errorFields(error), "daemon failed to start");
    await releaseLock?.();
    await fileLogger?.close();
    throw error;
  }
}
