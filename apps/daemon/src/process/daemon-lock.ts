import { mkdir } from "node:fs/promises";
import { acquireFileLock, DowncityError } from "@downcity/core";
import { daemonPaths } from "./daemon-paths.js";

/** Takes the project's daemon lock, so one daemon runs per project; returns its release. */
export async function lockDaemon(rootDir: string): Promise<() => Promise<void>> {
  const paths = daemonPaths(rootDir);
  try {
    await mkdir(paths.debugDir, { recursive: true });
    return await acquireFileLock(paths.lockFile, { timeoutMs: 300 });
  } catch (error) {
    if (!DowncityError.isInstance(error)) throw error;
    throw new DowncityError(
      "CONFLICT",
      `Another daemon already runs for ${rootDir}; stop it first (downcity stop)`,
      {
        cause: error,
      },
    );
  }
}
