import { readFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import type { DaemonStatus } from "./load-daemon-api.js";

/**
 * Answers `downcity status` without importing the daemon library (fastify and the AI SDK take
 * hundreds of milliseconds to load): "running" only when `daemon.json` names a live pid whose
 * daemon answers `GET /api/health` with that same pid, "not running" only when no pid file and no
 * meta file exist. Every other case (stale files, a reused pid) returns undefined so the daemon
 * library's `daemonStatus`, which cleans stale state, decides.
 */
export async function fastDaemonStatus(rootDir: string): Promise<DaemonStatus | undefined> {
  const debugDir = join(rootDir, ".downcity", "debug");
  const [metaText, pidText] = await Promise.all([
    readFile(join(debugDir, "daemon.json"), "utf8").catch(() => undefined),
    readFile(join(debugDir, "daemon.pid"), "utf8").catch(() => undefined),
  ]);
  if (metaText === undefined && pidText === undefined) return { running: false };
  if (metaText === undefined) return undefined;
  let meta: { pid?: unknown; host?: unknown; port?: unknown; startedAt?: unknown; version?: unknown };
  try {
    meta = JSON.parse(metaText) as typeof meta;
  } catch {
    return undefined;
  }
  if (typeof meta.pid !== "number" || typeof meta.port !== "number" || typeof meta.host !== "string") {
    return undefined;
  }
  if (!pidAlive(meta.pid)) return undefined;
  const health = await probeHealth(meta.host, meta.port);
  if (!health || (typeof health.pid === "number" && health.pid !== meta.pid)) return undefined;
  return {
    running: true,
    pid: meta.pid,
    host: meta.host,
    port: meta.port,
    ...(typeof meta.startedAt === "string" ? { startedAt: meta.startedAt } : {}),
    ...(typeof meta.version === "string" ? { version: meta.version } : {}),
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function probeHealth(host: string, port: number): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve) => {
    const call = request({ host, port, path: "/api/health", method: "GET", timeout: 1000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        if (response.statusCode !== 200) return resolve(undefined);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
          resolve(typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {});
        } catch {
          resolve(undefined);
        }
      });
    });
    call.on("timeout", () => call.destroy());
    call.on("error", () => resolve(undefined));
    call.end();
  });
}
