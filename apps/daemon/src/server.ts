import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import {
  acquireFileLock,
  createAgentRuntime,
  createChannelHost,
  createChannelServices,
  createServiceRegistry,
  createUsageLog,
  DowncityError,
  errorFields,
  type Logger,
  loadConfig,
  type Plugin,
  type PluginHost,
  processStartTime,
  readConfigSection,
  setupPlugins,
  type ToolSource,
  unclaimedConfigSections,
  unclaimedSectionsError,
  withRequestContext,
  writeConfigJsonSchema,
} from "@downcity/core";
import { type CommandCheck, createShellEngine } from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import type { LanguageModel } from "ai";
import { buildDaemonApp } from "./app.js";
import { loadChannels } from "./channels/load-channels.js";
import { defaultContextId } from "./chat/default-context-id.js";
import { hostSections, shellSection, startSection } from "./config/host-sections.js";
import { createFileLogger } from "./logging/create-file-logger.js";
import { builtinPlugins } from "./plugin-loader/builtin-plugins.js";
import { collectPlugins } from "./plugin-loader/collect-plugins.js";
import { removeDaemonMeta, writeDaemonMeta } from "./process/daemon-meta.js";
import { daemonPaths } from "./process/daemon-paths.js";
import { closeRunExecsOnAbort } from "./runtime/close-run-execs.js";
import { createModel } from "./runtime/create-model.js";
import { wireShellExitFollowUp } from "./runtime/shell-exit-follow-up.js";
import { createSleepInterrupts, reportSleepTick, type SleepInterrupts } from "./runtime/sleep-interrupts.js";
import { createProjectCommandCheck } from "./security/create-project-command-check.js";
import { createShellCredentials } from "./security/create-shell-credentials.js";
import { shellSandboxOptions } from "./security/shell-sandbox-options.js";
import { createChatService } from "./services/chat-service.js";
import { createShellService } from "./services/shell-service.js";
import { trackBackgroundJobs } from "./store/background-jobs.js";
import { openConfiguredStore } from "./store/open-configured-store.js";
import { ensureToken } from "./token/ensure-token.js";
import { recordUsage } from "./usage/record-usage.js";
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

/** Loads the project, wires runtime, shell, features and services, listens, and records daemon.pid/daemon.json. */
export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const rootDir = resolve(options.rootDir);
  const env = options.env ?? process.env;
  const paths = daemonPaths(rootDir);
  // `configEnv` is the environment over the project's .env: provider keys may live in either.
  const { config, env: configEnv } = await loadConfig(rootDir, { env });
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
  // Shutdown order: plug-ins first (they may still use the runtime), then the runtime, then the shell.
  const pluginCloses: Array<() => Promise<void> | void> = [];
  const coreCloses: Array<() => Promise<void> | void> = [];
  const cleanups = () => [...pluginCloses, ...coreCloses];
  try {
    const start = readConfigSection(config, startSection).value;
    const shellConfig = readConfigSection(config, shellSection).value;
    const entries = await collectPlugins({
      rootDir,
      builtins: options.plugins ?? builtinPlugins,
      specifiers: config.plugins,
    });
    const loaded = entries.flatMap((entry) => (entry.plugin ? [entry.plugin] : []));
    const unclaimed = unclaimedConfigSections(config, [
      ...hostSections.map((section) => section.name),
      ...loaded.map((plugin) => plugin.name),
    ]);
    if (unclaimed.length > 0) {
      const error = unclaimedSectionsError(
        unclaimed,
        loaded.map((plugin) => plugin.name),
      );
      // A plug-in that failed to load may be the owner: report, but do not refuse to start.
      if (entries.every((entry) => entry.plugin)) throw error;
      logger.warn({ sections: unclaimed }, error.message);
    }
    await writeConfigJsonSchema(rootDir, [...hostSections, ...loaded]).catch((error: unknown) =>
      logger.warn(errorFields(error), "could not write the downcity.json JSON Schema"),
    );
    // A shared store (several workers serve one agent): opened before anything writes history.
    const store = config.store ? await openConfiguredStore(rootDir, config.store) : undefined;
    if (store) {
      coreCloses.push(() => store.close());
      logger.info({ store: store.kind }, "history, inbox and outbox live in the shared store");
    }
    const token = await ensureToken(env);
    const choice = options.model ? { model: options.model } : await createModel(config.llm, configEnv);
    // Shell children never see the user-level token: each session gets a token scoped to this
    // daemon, its context and its own lifetime (see security/ and the README's security model).
    const credentials = createShellCredentials({
      // Asked only once sessions exist, so the engine below is in place by then.
      status: (shellId) => engine.status({ shell_id: shellId }),
      defaultContextId,
    });
    coreCloses.push(() => credentials.tokens.revokeAll());
    const server: {
      host: string;
      port?: number;
      token: (session: { shellId: string; contextId?: string }) => string;
    } = { host: options.host ?? start.host, token: credentials.issue };
    // Bound once the runtime exists; until then no run can start a command.
    let checkCommand: CommandCheck | undefined;
    const sandbox = shellSandboxOptions(shellConfig.sandbox, env, rootDir);
    const engine = createShellEngine({
      rootDir,
      env,
      ...(shellConfig.secretEnv ? { secretEnv: shellConfig.secretEnv } : {}),
      ...(sandbox ? { sandbox } : {}),
      checkCommand: (request) => checkCommand?.(request),
      // Read at each spawn, so the port filled in after listen reaches every child.
      server,
      ...(shellConfig.maxSessions ? { limits: { maxSessions: shellConfig.maxSessions } } : {}),
    });
    coreCloses.push(() => engine.closeAll({ grace_ms: 1000 }));
    // shell_sleep ends early on a new message for the run's chat: the source is wired to the runtime below.
    let sleepInterrupts: SleepInterrupts | undefined;
    const shellTools: ToolSource = (run) => {
      closeRunExecsOnAbort({ engine, contextId: run.contextId, abortSignal: run.abortSignal, logger });
      return createShellTools(engine, {
        contextId: run.contextId,
        requestId: run.requestId,
        abortSignal: run.abortSignal,
        ...(sleepInterrupts ? { sleep: sleepInterrupts.forRun(run) } : {}),
      });
    };
    let pluginHost: PluginHost | undefined;
    const runtime = createAgentRuntime({
      rootDir,
      ...(choice.model ? { model: choice.model } : { modelHint: choice.hint }),
      tools: [shellTools],
      ...(config.lanes ? { maxConcurrency: config.lanes.maxConcurrency } : {}),
      ...(config.run
        ? {
            maxSteps: config.run.maxSteps,
            limits: {
              stepTimeoutMs: config.run.stepTimeoutMs,
              runTimeoutMs: config.run.runTimeoutMs,
              idleTimeoutMs: config.run.idleTimeoutMs,
            },
          }
        : {}),
      ...(config.history ? { history: config.history } : {}),
      logger,
      historyDir: (contextId) => pluginHost?.historyDir(contextId),
      ...(store ? { sharedHistory: store.history } : {}),
      closeGraceMs: options.closeGraceMs ?? 0,
    });
    checkCommand = createProjectCommandCheck({
      rootDir,
      config,
      history: (contextId) => runtime.history(contextId),
      logger,
    });
    const stopUsage = recordUsage({ runtime, usageLog: createUsageLog({ rootDir }), logger });
    coreCloses.unshift(() => runtime.close());
    sleepInterrupts = createSleepInterrupts({ runtime, onTick: reportSleepTick(runtime, logger) });
    const channelHost = await createChannelHost({
      rootDir,
      runtime,
      logger,
      channels: await loadChannels(rootDir, config.channels),
      ...(store
        ? {
            store,
            leaseMs: config.store?.leaseMs,
            ...(config.lanes ? { concurrency: config.lanes.maxConcurrency } : {}),
          }
        : {}),
    });
    // After the runtime: runs finishing during shutdown still record their replies in the outbox.
    coreCloses.splice(1, 0, () => channelHost.close());
    if (store && config.store) {
      const jobs = trackBackgroundJobs({
        engine,
        runtime,
        store,
        workerId: channelHost.workerId,
        leaseMs: config.store.leaseMs,
        logger,
      });
      coreCloses.unshift(() => jobs.stop());
    }
    const registry = createServiceRegistry({ logger });
    registry.register(createChatService(runtime, channelHost));
    registry.register(createShellService(engine));
    for (const service of createChannelServices(channelHost)) registry.register(service);
    pluginHost = await setupPlugins({
      rootDir,
      config,
      runtime,
      registry,
      logger,
      ...(choice.model ? { model: choice.model } : {}),
      plugins: entries,
    });
    const plugins = pluginHost;
    pluginCloses.push(() => plugins.close());
    const version = daemonVersion();
    const app = buildDaemonApp({
      runtime,
      registry,
      token,
      capabilities: credentials.scope,
      logger,
      version,
      plugins: () => plugins.status(),
      channels: channelHost,
      ...(config.name ? { name: config.name } : {}),
    });
    await app.listen({ host: server.host, port: options.port ?? start.port });
    const address = app.server.address() as AddressInfo;
    server.port = address.port;
    const unwire = wireShellExitFollowUp({ engine, runtime, logger });
    const recovered = await engine.recover();
    if (recovered.lost.length + recovered.replayed.length > 0)
      logger.info(recovered, "shell sessions recovered");
    await registry.startAll();
    await channelHost.start();
    // Adapters' own services (e.g. `downcity tg set-webhook <url>`), named after their instance.
    for (const service of channelHost.adapterServices()) {
      if (registry.get(service.name)) {
        logger.warn(
          { service: service.name },
          "a channel's service name is taken; rename the channel instance",
        );
        continue;
      }
      registry.register(service);
    }
    const startedAt = new Date().toISOString();
    await writeDaemonMeta(rootDir, {
      pid: process.pid,
      host: server.host,
      port: address.port,
      startedAt,
      version,
      pidStartTime: processStartTime(process.pid),
      plugins: plugins.status(),
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
        stopUsage();
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
