import { join } from "node:path";
import { downcityPaths } from "@downcity/core/primitives";

/** Where a project's daemon keeps its runtime files under `.downcity/`. */
export interface DaemonPaths {
  rootDir: string;
  debugDir: string;
  pidFile: string;
  metaFile: string;
  logFile: string;
  lockFile: string;
  logsDir: string;
}

/** Resolves the `.downcity/debug/*` and `.downcity/logs` paths of a project. */
export function daemonPaths(rootDir: string): DaemonPaths {
  const { rootDir: root, debugDir, logsDir } = downcityPaths(rootDir);
  return {
    rootDir: root,
    debugDir,
    pidFile: join(debugDir, "daemon.pid"),
    metaFile: join(debugDir, "daemon.json"),
    logFile: join(debugDir, "daemon.log"),
    lockFile: join(debugDir, "daemon.lock"),
    logsDir,
  };
}
