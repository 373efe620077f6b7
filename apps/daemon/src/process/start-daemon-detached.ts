import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { DowncityError } from "@downcity/core";
import { daemonEntry } from "./daemon-entry.js";
import { readDaemonMeta } from "./daemon-meta.js";
import { daemonPaths } from "./daemon-paths.js";
import { daemonStatus } from "./daemon-status.js";
import { waitForHealth } from "./wait-for-health.js";

/** Options of `startDaemonDetached`. */
export interface StartDaemonOptions {
  rootDir: string;
  env?: Record<string, string | undefined>;
  /** Script to run instead of the built `daemon-main.js`. */
  entry?: string;
  /** How long to wait for `/api/health` [15 s]. */
  timeoutMs?: number;
}

/** The last lines this start wrote: the log is appended to, so earlier runs' lines are skipped. */
function logTail(path: string, fromOffset: number): string {
  try {
    return readFileSync(path).subarray(fromOffset).toString("utf8").split("\n").slice(-12).join("\n").trim();
  } catch {
    return "";
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Starts the project's daemon as a detached process (log in `.downcity/debug/daemon.log`) and waits until it is healthy. */
export async function startDaemonDetached(
  options: StartDaemonOptions,
): Promise<{ pid: number; host: string; port: number }> {
  const paths = daemonPaths(options.rootDir);
  const current = await daemonStatus({ rootDir: paths.rootDir });
  if (current.running) {
    throw new DowncityError(
      "CONFLICT",
      `The daemon of ${paths.rootDir} already runs (pid ${current.pid}); use restart or stop`,
      {
        field: "rootDir",
      },
    );
  }
  mkdirSync(paths.debugDir, { recursive: true });
  const logStart = fileSize(paths.logFile);
  const log = openSync(paths.logFile, "a");
  const env = options.env ?? process.env;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let child: ReturnType<typeof spawn>;
  try {
    // A smaller young generation keeps a long-lived, mostly idle daemon's memory low; GC cost stays small.
    // --optimize-for-size: under sustained load V8 otherwise lets the old generation grow to several
    // times the live heap before collecting (the daemon soak measured 400 MB RSS over 9,000 turns with
    // about 45 MB live); with it the soak plateaus near 130 MB.
    const nodeFlags = ["--max-semi-space-size=2", "--optimize-for-size"];
    // glibc gives each thread (libuv's pool, V8's helpers) its own malloc arena, up to 8 per core;
    // they held 9-18 MB of the soak's RSS and grew 4-8 MB over it. Two hold 2.5-5 MB, with no
    // turn rate lost (docs/decisions/2026-11-27-daemon-malloc-arenas.md). A value set by the user wins.
    const childEnv = { ...env, MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? "2" };
    child = spawn(process.execPath, [...nodeFlags, options.entry ?? daemonEntry(env), paths.rootDir], {
      cwd: paths.rootDir,
      env: childEnv as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", log, log],
    });
  } finally {
    closeSync(log);
  }
  child.on("exit", (code, signal) => {
    exited = { code, signal };
  });
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new DowncityError("INTERNAL", "Could not spawn the daemon process");
  const deadline = Date.now() + (options.timeoutMs ?? 15000);
  while (Date.now() < deadline && !exited) {
    const found = await readDaemonMeta(paths.rootDir);
    if (found?.meta?.pid === pid) {
      const { host, port } = found.meta;
      const healthy = await waitForHealth({
        host,
        port,
        timeoutMs: deadline - Date.now(),
        stop: () => Boolean(exited),
      });
      if (healthy) return { pid, host, port };
      break;
    }
    await sleep(15);
  }
  if (!exited) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  const tail = logTail(paths.logFile, logStart);
  const error = new DowncityError(
    "INTERNAL",
    `The daemon did not become healthy${exited ? ` (it exited with ${exited.code ?? exited.signal})` : " in time"}. ` +
      (tail ? `What it wrote (${paths.logFile}):\n${tail}` : `It wrote nothing to ${paths.logFile}.`),
  );
  // The daemon's own exit code tells callers why (e.g. it could not register with the console).
  throw exited?.code != null ? Object.assign(error, { daemonExitCode: exited.code }) : error;
}
