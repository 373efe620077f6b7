import { isProcessAlive } from "@downcity/core/primitives";
import { type DaemonMeta, readDaemonMeta, removeDaemonMeta } from "./daemon-meta.js";

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
  /** Each plug-in's state at start-up. */
  plugins?: DaemonMeta["plugins"];
}

/** Reads daemon.pid/daemon.json and checks liveness (pid and its start time); cleans stale files. */
export async function daemonStatus(options: { rootDir: string }): Promise<DaemonStatus> {
  const found = await readDaemonMeta(options.rootDir);
  if (!found?.pid) {
    if (found) await removeDaemonMeta(options.rootDir);
    return found ? { running: false, staleCleaned: true } : { running: false };
  }
  const meta = found.meta && found.meta.pid === found.pid ? found.meta : undefined;
  // daemon.json is written before daemon.pid, so a pid file without a matching meta is a leftover
  // (its pid may even belong to another process by now): never trust it, clean it.
  if (!meta || !isProcessAlive(found.pid, meta.pidStartTime ?? null)) {
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
    ...(meta.plugins ? { plugins: meta.plugins } : {}),
  };
}
