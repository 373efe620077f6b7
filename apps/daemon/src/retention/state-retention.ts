import {
  type DowncityConfig,
  downcityPaths,
  errorFields,
  type Logger,
  readConfigSection,
} from "@downcity/core";
import { logsSection, shellSection } from "../config/host-sections.js";
import { pruneDayFiles } from "./prune-day-files.js";
import { pruneShellSessions } from "./prune-shell-sessions.js";

const dayMs = 86_400_000;

/** How long the daemon keeps its day logs and finished shell sessions' folders, in days. */
export function retentionDays(config: DowncityConfig): { logs: number; shell: number } {
  return {
    logs: readConfigSection(config, logsSection).value.retainDays,
    shell: readConfigSection(config, shellSection).value.retainDays,
  };
}

/**
 * Prunes day logs older than `logs.retainDays` (30) and the folders of shell sessions that ended
 * more than `shell.retainDays` (7) ago, at start and then daily; returns the stop. (Run journals
 * have their own: `runs.retainDays`, see open-run-journal.) Failures are logged, never thrown.
 */
export function startStateRetention(options: {
  rootDir: string;
  config: DowncityConfig;
  logger: Logger;
  now?: () => Date;
}): { pruned: Promise<void>; stop: () => void } {
  const now = options.now ?? (() => new Date());
  const days = retentionDays(options.config);
  const { logsDir, shellDir } = downcityPaths(options.rootDir);
  const prune = async () => {
    const at = now().getTime();
    try {
      const logs = await pruneDayFiles(logsDir, new Date(at - days.logs * dayMs));
      const shells = await pruneShellSessions(shellDir, new Date(at - days.shell * dayMs));
      if (logs + shells > 0)
        options.logger.info({ logs, shells, retainDays: days }, "pruned old day logs and shell sessions");
    } catch (error) {
      options.logger.warn(errorFields(error), "could not prune old day logs and shell sessions");
    }
  };
  const pruned = prune();
  const timer = setInterval(() => void prune(), dayMs);
  timer.unref();
  return { pruned, stop: () => clearInterval(timer) };
}
