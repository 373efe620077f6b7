import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { DowncityError, processStartTime } from "@downcity/core";
import { readDaemonMeta, removeDaemonMeta } from "../process/daemon-meta.js";
import { daemonStatus } from "../process/daemon-status.js";
import { startDaemonDetached } from "../process/start-daemon-detached.js";
import { stopDaemon, terminateProcess } from "../process/stop-daemon.js";
import { removeAgentEntry, upsertAgentEntry } from "./agent-registry.js";
import { consoleProcess } from "./console-process.js";
import { registrationFailedExitCode } from "./daemon-registration.js";

type Env = Record<string, string | undefined>;

/** Options of `agentOn`. */
export interface AgentOnOptions {
  rootDir: string;
  env?: Env;
  /** Daemon script to run instead of the built `daemon-main.js`. */
  entry?: string;
}

/**
 * Turns a project's agent on: verifies the console runs and the project is initialised, starts
 * the daemon detached, then registers it in `agents.json`; if registering fails, the daemon is
 * killed and its pid/meta removed, so no unregistered agent is left behind.
 */
export async function agentOn(
  options: AgentOnOptions,
): Promise<{ projectRoot: string; pid: number; host: string; port: number; startedAt: string }> {
  const env = options.env ?? process.env;
  const projectRoot = resolve(options.rootDir);
  if (!(await consoleProcess(env)).meta) {
    throw new DowncityError(
      "NOT_FOUND",
      'The console is not running. Start it with "downcity console start".',
      {
        field: "console",
      },
    );
  }
  for (const file of ["PROFILE.md", "downcity.json"]) {
    if (!existsSync(join(projectRoot, file))) {
      throw new DowncityError(
        "CONFIG_NOT_FOUND",
        `${projectRoot} has no ${file}. Run "downcity init" there first.`,
        {
          field: file,
        },
      );
    }
  }
  const running = await daemonStatus({ rootDir: projectRoot });
  const startedHere = !running.running;
  const daemon = running.running
    ? { pid: running.pid as number, host: running.host as string, port: running.port as number }
    : await startDaemonDetached({
        rootDir: projectRoot,
        env,
        ...(options.entry ? { entry: options.entry } : {}),
      }).catch((error: unknown) => {
        // The daemon registers itself first and stops when it cannot: the same failure as below.
        if ((error as { daemonExitCode?: number }).daemonExitCode !== registrationFailedExitCode) throw error;
        throw new DowncityError(
          "SERVICE_ERROR",
          `Could not register the agent in the console registry; the daemon was stopped again. ${(error as Error).message}`,
          { cause: error },
        );
      });
  const meta = (await readDaemonMeta(projectRoot))?.meta;
  const now = new Date().toISOString();
  const startedAt = meta?.startedAt ?? now;
  try {
    await upsertAgentEntry(env, {
      projectRoot,
      pid: daemon.pid,
      startedAt,
      updatedAt: now,
      pidStartTime: meta?.pidStartTime ?? processStartTime(daemon.pid),
    });
  } catch (error) {
    if (startedHere) {
      await terminateProcess(daemon.pid, { graceMs: 2000 });
      await removeDaemonMeta(projectRoot, daemon.pid);
    }
    throw new DowncityError(
      "SERVICE_ERROR",
      `Could not register the agent in the console registry (${error instanceof Error ? error.message : String(error)}); ${startedHere ? "the daemon was stopped again" : "the daemon keeps running"}`,
      { cause: error },
    );
  }
  return { projectRoot, ...daemon, startedAt };
}

/** Stops a project's daemon and removes it from the console registry. */
export async function agentOff(options: { rootDir: string; env?: Env; graceMs?: number }): Promise<{
  stopped: boolean;
  deregistered: boolean;
  pid?: number;
}> {
  const env = options.env ?? process.env;
  const projectRoot = resolve(options.rootDir);
  const stopped = await stopDaemon({
    rootDir: projectRoot,
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  const deregistered = await removeAgentEntry(env, projectRoot);
  return {
    stopped: stopped.stopped,
    deregistered,
    ...(stopped.pid !== undefined ? { pid: stopped.pid } : {}),
  };
}
