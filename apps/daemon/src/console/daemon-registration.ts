import { resolve } from "node:path";
import { DowncityError, processStartTime } from "@downcity/core";
import { updateAgentRegistry, upsertAgentEntry } from "./agent-registry.js";

type Env = Record<string, string | undefined>;

/** The exit code of a daemon that did not start because the console registry could not be written. */
export const registrationFailedExitCode = 3;

/** A daemon's entry in the user's console registry, to be marked stopped when the daemon stops. */
export interface DaemonRegistration {
  /** Marks the entry stopped (the agent stays listed as stopped); a failure is reported, never thrown. */
  markStopped(): Promise<void>;
  /** Removes the entry: the start it belonged to did not happen. */
  rollBack(): Promise<void>;
}

/**
 * Registers this daemon process with `$DOWNCITY_HOME/console/agents.json` before it starts, so the
 * console lists every started agent; when the registry cannot be written the daemon does not start.
 */
export async function registerDaemon(options: {
  rootDir: string;
  env: Env;
  pid?: number;
}): Promise<DaemonRegistration> {
  const projectRoot = resolve(options.rootDir);
  const pid = options.pid ?? process.pid;
  const now = new Date().toISOString();
  try {
    await upsertAgentEntry(options.env, {
      projectRoot,
      pid,
      startedAt: now,
      updatedAt: now,
      pidStartTime: processStartTime(pid),
    });
  } catch (error) {
    throw new DowncityError(
      "SERVICE_ERROR",
      `Could not register the agent in the console registry (${error instanceof Error ? error.message : String(error)}); the daemon did not start`,
      { cause: error },
    );
  }
  // Only this daemon's own entry is touched: `agent off` may have removed it, a successor replaced it.
  const ownEntry = (change: "stop" | "remove") =>
    updateAgentRegistry(options.env, (entries) => ({
      entries: entries.flatMap((entry) => {
        if (entry.projectRoot !== projectRoot || entry.pid !== pid) return [entry];
        if (change === "remove") return [];
        const at = new Date().toISOString();
        return [{ ...entry, stoppedAt: at, updatedAt: at }];
      }),
      result: undefined,
    }));
  return {
    markStopped: () => ownEntry("stop"),
    rollBack: () => ownEntry("remove"),
  };
}
