import { resolve } from "node:path";
import { errorFields, type Logger, loadConfig, processStartTime, readConfigSection } from "@downcity/core";
import { withRequestContext } from "@downcity/core/internal";
import { daemonComponents } from "./components/daemon-components.js";
import { startSection } from "./config/host-sections.js";
import type { DaemonContext, DaemonParts } from "./host/daemon-parts.js";
import { type ComponentHost, setupComponents } from "./host/setup-components.js";
import { createFileLogger } from "./logging/create-file-logger.js";
import { builtinPlugins } from "./plugin-loader/builtin-plugins.js";
import { loadProjectPlugins } from "./plugin-loader/load-project-plugins.js";
import { lockDaemon } from "./process/daemon-lock.js";
import { removeDaemonMeta, writeDaemonMeta } from "./process/daemon-meta.js";
import { daemonPaths } from "./process/daemon-paths.js";
import { createShutdownTrigger } from "./process/shutdown-trigger.js";
import type { RunDaemonOptions, RunningDaemon } from "./run-daemon-options.js";
import { daemonVersion } from "./version.js";

export type { RunDaemonOptions, RunningDaemon } from "./run-daemon-options.js";

/**
 * Loads the project, sets up the daemon's components (components/: the last one listens, and they
 * close in reverse) and records daemon.pid/daemon.json.
 */
export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const rootDir = resolve(options.rootDir);
  const env = options.env ?? process.env;
  const { config, env: configEnv } = await loadConfig(rootDir, { env });
  const fileLogger = options.logger ? undefined : createFileLogger({ logsDir: daemonPaths(rootDir).logsDir });
  // Every line written inside a run (runtime, tools, features, services) carries its contextId and requestId.
  const logger = withRequestContext(options.logger ?? (fileLogger?.logger as Logger));
  const releaseLock = await lockDaemon(rootDir).catch(async (error: unknown) => {
    await fileLogger?.close();
    throw error;
  });
  let host: ComponentHost<DaemonParts>;
  try {
    const start = readConfigSection(config, startSection).value;
    const context: DaemonContext = {
      rootDir,
      env,
      config,
      configEnv,
      logger,
      listen: { host: options.host ?? start.host, port: options.port ?? start.port },
      closeGraceMs: options.closeGraceMs ?? 0,
      ...(options.model ? { model: options.model } : {}),
      plugins: await loadProjectPlugins({
        rootDir,
        env,
        specifiers: config.plugins,
        builtins: options.plugins ?? builtinPlugins,
        logger,
      }),
    };
    host = await setupComponents({ given: { context }, components: daemonComponents, logger });
    await recordDaemonMeta(host).catch(async (error: unknown) => {
      await host.close();
      throw error;
    });
  } catch (error) {
    logger.error(errorFields(error), "daemon failed to start");
    await releaseLock();
    await fileLogger?.close();
    throw error;
  }
  const shutdown = createShutdownTrigger({
    logger,
    handleSignals: options.handleSignals !== false,
    ...(options.signal ? { signal: options.signal } : {}),
    async shutdown() {
      await host.close();
      await removeDaemonMeta(rootDir, process.pid);
      await releaseLock();
      logger.info({}, "daemon stopped");
      await fileLogger?.close();
    },
  });
  const { host: listenHost, port } = host.parts.intake;
  return { host: listenHost, port, pid: process.pid, ...shutdown };
}

/** Writes daemon.pid and daemon.json (address, version, plug-in states), which `status` and `stop` read. */
async function recordDaemonMeta({ parts }: ComponentHost<DaemonParts>): Promise<void> {
  const { host, port } = parts.intake;
  const version = daemonVersion();
  await writeDaemonMeta(parts.context.rootDir, {
    pid: process.pid,
    host,
    port,
    startedAt: new Date().toISOString(),
    version,
    pidStartTime: processStartTime(process.pid),
    plugins: parts.plugins.status(),
  });
  parts.context.logger.info({ host, port, version, model: Boolean(parts.runtime.model) }, "daemon listening");
}
