import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { DowncityError, isProcessAlive } from "@downcity/core";
import { type DaemonMeta, daemonMetaSchema } from "../process/daemon-meta-schema.js";
import { terminateProcess } from "../process/stop-daemon.js";
import { waitForHealth } from "../process/wait-for-health.js";
import { type AgentEntry, listAgents } from "./agent-registry.js";
import { consolePaths } from "./console-paths.js";

type Env = Record<string, string | undefined>;

/** What `consoleStatus` reports: the console process and the live agents (stale entries removed). */
export interface ConsoleStatus {
  running: boolean;
  pid?: number;
  host?: string;
  port?: number;
  startedAt?: string;
  version?: string;
  staleCleaned?: boolean;
  agents: AgentEntry[];
  /** Agents whose daemon stopped cleanly: listed until the user removes them (`downcity agent off`). */
  stoppedAgents: AgentEntry[];
  removedAgents: AgentEntry[];
}

async function readConsoleMeta(env: Env): Promise<DaemonMeta | undefined> {
  const text = await readFile(consolePaths(env).metaFile, "utf8").catch(() => undefined);
  if (!text) return undefined;
  try {
    const parsed = daemonMetaSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function removeConsoleMeta(env: Env): Promise<void> {
  const paths = consolePaths(env);
  await rm(paths.metaFile, { force: true });
  await rm(paths.pidFile, { force: true });
}

/** The console process only (no registry check): running with meta, or not (stale files cleaned). */
export async function consoleProcess(env: Env): Promise<{ meta?: DaemonMeta; staleCleaned?: boolean }> {
  const meta = await readConsoleMeta(env);
  if (meta && isProcessAlive(meta.pid, meta.pidStartTime ?? null)) return { meta };
  const paths = consolePaths(env);
  if (meta || existsSync(paths.pidFile)) {
    await removeConsoleMeta(env);
    return { staleCleaned: true };
  }
  return {};
}

/** Reports whether the console runs and lists live agents, dropping stale registry entries. */
export async function consoleStatus(options: { env?: Env } = {}): Promise<ConsoleStatus> {
  const env = options.env ?? process.env;
  const { meta, staleCleaned } = await consoleProcess(env);
  const { agents, stopped, removed } = await listAgents({ env });
  return {
    running: Boolean(meta),
    ...(meta
      ? { pid: meta.pid, host: meta.host, port: meta.port, startedAt: meta.startedAt, version: meta.version }
      : {}),
    ...(staleCleaned ? { staleCleaned } : {}),
    agents,
    stoppedAgents: stopped,
    removedAgents: removed,
  };
}

/** The script the console process runs: `$DOWNCITY_CONSOLE_ENTRY`, else `console-main.js` beside the built library. */
export function consoleEntry(env: Env = process.env): string {
  if (env.DOWNCITY_CONSOLE_ENTRY) return env.DOWNCITY_CONSOLE_ENTRY;
  const beside = fileURLToPath(new URL("./console-main.js", import.meta.url));
  if (existsSync(beside)) return beside;
  return fileURLToPath(new URL("../../dist/console-main.js", import.meta.url));
}

/** Starts the user-level console detached (log in `$DOWNCITY_HOME/console/console.log`); returns the running one if any. */
export async function startConsole(
  options: { env?: Env; entry?: string; timeoutMs?: number } = {},
): Promise<{ pid: number; host: string; port: number; alreadyRunning: boolean }> {
  const env = options.env ?? process.env;
  const current = await consoleProcess(env);
  if (current.meta) {
    return { pid: current.meta.pid, host: current.meta.host, port: current.meta.port, alreadyRunning: true };
  }
  const paths = consolePaths(env);
  mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const log = openSync(paths.logFile, "a");
  let exited = false;
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(process.execPath, [options.entry ?? consoleEntry(env)], {
      env: env as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", log, log],
    });
  } finally {
    closeSync(log);
  }
  child.on("exit", () => {
    exited = true;
  });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new DowncityError("INTERNAL", "Could not spawn the console process");
  const deadline = Date.now() + (options.timeoutMs ?? 10000);
  while (Date.now() < deadline && !exited) {
    const meta = await readConsoleMeta(env);
    if (meta?.pid === pid) {
      if (
        await waitForHealth({
          host: meta.host,
          port: meta.port,
          timeoutMs: deadline - Date.now(),
          stop: () => exited,
        })
      ) {
        return { pid, host: meta.host, port: meta.port, alreadyRunning: false };
      }
      break;
    }
    await sleep(15);
  }
  if (!exited) await terminateProcess(pid, { graceMs: 500 });
  const tail = await readFile(paths.logFile, "utf8").then(
    (text) => text.split("\n").slice(-10).join("\n"),
    () => "",
  );
  throw new DowncityError("INTERNAL", `The console did not start. Last lines of ${paths.logFile}:\n${tail}`);
}

/** Stops the console (SIGTERM, then SIGKILL after `graceMs` [5 s]); agents keep running. */
export async function stopConsole(
  options: { env?: Env; graceMs?: number } = {},
): Promise<{ stopped: boolean; pid?: number }> {
  const env = options.env ?? process.env;
  const { meta } = await consoleProcess(env);
  if (!meta) return { stopped: false };
  await terminateProcess(meta.pid, {
    graceMs: options.graceMs ?? 5000,
    startTime: meta.pidStartTime ?? null,
  });
  await removeConsoleMeta(env);
  return { stopped: true, pid: meta.pid };
}
