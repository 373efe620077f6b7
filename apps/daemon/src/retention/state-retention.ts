import { join } from "node:path";
import {
  type DowncityConfig,
  downcityPaths,
  errorFields,
  type Logger,
  readConfigSection,
  type UsageStore,
} from "@downcity/core";
import { logsSection, shellSection, usageSection } from "../config/host-sections.js";
import { pruneDayFiles } from "./prune-day-files.js";
import { pruneShellSessions } from "./prune-shell-sessions.js";

const dayMs = 86_400_000;

/** How long the daemon keeps its day logs, finished shell sessions' folders and usage records, in days. */
export function retentionDays(config: DowncityConfig): { logs: number; shell: number; usage: number } {
  return {
    logs: readConfigSection(config, logsSection).value.retainDays,
    shell: readConfigSection(config, shellSection).value.retainDays,
    usage: readConfigSection(config, usageSection).value.retainDays,
  };
}

/**
 * Prunes day logs older than `logs.retainDays` (30), the folders of shell sessions that ended
 * more than `shell.retainDays` (7) ago, and usage records older than `usage.retainDays` (365: the
 * day files of `.downcity/usage/`, and the store's records when `usage` can prune), at start and
 * then daily; returns the stop. (Run journals have their own: `runs.retainDays`, see
 * open-run-journal.) Failures are logged, never thrown.
 */
export function startStateRetention(options: {
  rootDir: string;
  config: DowncityConfig;
  logger: Logger;
  /** The usage store the daemon records to (a shared store's deletes its old rows). */
  usage?: Pick<UsageStore, "prune">;
  now?: () => Date;
}): { pruned: Promise<void>; stop: () => void } {
  const now = options.now ?? (() => new Date());
  const days = retentionDays(options.config);
  const { logsDir, shellDir, stateDir } = downcityPaths(options.rootDir);
  const prune = async () => {
    const at = now().getTime();
    try {
      const logs = await pruneDayFiles(logsDir, new Date(at - days.logs * dayMs));
      const shells = await pruneShellSessions(shellDir, new Date(at - days.shell * dayMs));
      const usageBefore = new Date(at - days.usage * dayMs);
      const usageFiles = await pruneDayFiles(join(stateDir, "usage"), usageBefore);
      const usageRecords = (await options.usage?.prune?.(usageBefore)) ?? 0;
      if (logs + shells + usageFiles + usageRecords > 0)
        options.logger.info(
          { logs, shells, usageFiles, usageRecords, retainDays: days },
          "pruned old day logs, shell sessions and usage records",
        );
    } catch (error) {
      options.logger.warn(
        errorFields(error),
        "could not prune old day logs, shell sessions and usage records",
      );
    }
  };
  const pruned = prune();
  const timer = setInterval(() => void prune(), dayMs);
  timer.unref();
  return { pruned, stop: () => clearInterval(timer) };
}
