import type { RunDaemonOptions, RunningDaemon } from "./server.js";

/** Runs the daemon in this process (see server.ts); loaded lazily so light commands such as `status` stay fast. */
export async function runDaemon(options: RunDaemonOptions): Promise<RunningDaemon> {
  const server = await import("./server.js");
  return server.runDaemon(options);
}
