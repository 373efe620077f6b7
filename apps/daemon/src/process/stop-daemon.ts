import { setTimeout as sleep } from "node:timers/promises";
import { isProcessAlive } from "@downcity/core";
import { readDaemonMeta, removeDaemonMeta } from "./daemon-meta.js";
import { daemonStatus } from "./daemon-status.js";

/** Sends SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function terminateProcess(
  pid: number,
  options: { graceMs?: number; startTime?: string | null } = {},
): Promise<"terminated" | "killed" | "gone"> {
  const startTime = options.startTime ?? null;
  if (!isProcessAlive(pid, startTime)) return "gone";
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    return "gone";
  }
  const deadline = Date.now() + (options.graceMs ?? 10000);
  while (Date.now() < deadline) {
    if (!isProcessAlive(pid, startTime)) return "terminated";
    await sleep(20);
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    return "terminated";
  }
  while (isProcessAlive(pid, startTime)) await sleep(10);
  return "killed";
}

/** Stops a project's daemon (SIGTERM, SIGKILL after `graceMs` [10 s]) and removes its pid/meta files. */
export async function stopDaemon(options: {
  rootDir: string;
  graceMs?: number;
}): Promise<{ stopped: boolean; pid?: number; killed?: boolean; staleCleaned?: boolean }> {
  const status = await daemonStatus({ rootDir: options.rootDir });
  if (!status.running || status.pid === undefined) {
    return { stopped: false, ...(status.staleCleaned ? { staleCleaned: true } : {}) };
  }
  const found = await readDaemonMeta(options.rootDir);
  const outcome = await terminateProcess(status.pid, {
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    startTime: found?.meta?.pidStartTime ?? null,
  });
  await removeDaemonMeta(options.rootDir, status.pid);
  return { stopped: true, pid: status.pid, killed: outcome === "killed" };
}
