import { isProcessAlive } from "@downcity/core";
import { readDaemonMeta, removeDaemonMeta } from "./daemon-meta.js";

/** What `daemonStatus` reports about a project's daemon. */
export interface DaemonStatus {
  running: boolean;
  pid?: number;
  host?: string;
  port?: number;
  startedAt?: string;
  version?: string;
  /** True when a pid file of a dead (or recycled) process was found and removed. */
  staleCleaned?: boolean;
}

/** Reads daemon.pid/daemon.json and checks liveness (pid and its start time); cleans stale files. */
export async function daemonStatus(options: { rootDir: string }): Promise<DaemonStatus> {
  const found = await readDaemonMeta(options.rootDir);
  if (!found?.pid) {
    if (found) await removeDaemonMeta(options.rootDir);
    return found ? { running: false, staleCleaned: true } : { running: false };
  }
  const meta = found.meta && found.meta.pid === found.pid ? found.meta : undefined;
  if (!isProcessAlive(found.pid, meta?.pidStartTime ?? null) || !meta) {
    // A pid file without its meta is a daemon still starting (or one that crashed while starting).
    if (!meta && isProcessAlive(found.pid)) return { running: false, pid: found.pid };
    await removeDaemonMeta(options.rootDir, found.pid);
    return { running: false, pid: found.pid, staleCleaned: true };
  }
  return {
    running: true,
    pid: meta.pid,
    host: meta.host,
    port: meta.port,
    startedAt: meta.startedAt,
    version: meta.version,
  };
}
