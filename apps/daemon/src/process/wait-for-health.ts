import { setTimeout as sleep } from "node:timers/promises";

/** Polls `GET /api/health` until it answers 200 or `timeoutMs` passes; false on timeout or when `stop()` says so. */
export async function waitForHealth(options: {
  host: string;
  port: number;
  timeoutMs: number;
  stop?: () => boolean;
}): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  while (Date.now() < deadline) {
    if (options.stop?.()) return false;
    try {
      const response = await fetch(`http://${host}:${options.port}/api/health`, {
        signal: AbortSignal.timeout(1000),
      });
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await sleep(20);
  }
  return false;
}
