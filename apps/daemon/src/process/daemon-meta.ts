import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { writeFileAtomic } from "@downcity/core/primitives";
import type { DaemonMeta } from "./daemon-meta-schema.js";
import { daemonPaths } from "./daemon-paths.js";

export type { DaemonMeta };

/** Writes `daemon.pid` and `daemon.json` atomically. */
export async function writeDaemonMeta(rootDir: string, meta: DaemonMeta): Promise<void> {
  const paths = daemonPaths(rootDir);
  await mkdir(paths.debugDir, { recursive: true });
  await writeFileAtomic(paths.metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  await writeFileAtomic(paths.pidFile, `${meta.pid}\n`);
}

/** Reads `daemon.json` (or just `daemon.pid` when the meta is missing); undefined when neither is usable. */
export async function readDaemonMeta(
  rootDir: string,
): Promise<{ meta?: DaemonMeta; pid?: number } | undefined> {
  const paths = daemonPaths(rootDir);
  // The schema (and zod) loads only when there is a file to check: `downcity status` without a daemon stays light.
  const meta = await readFile(paths.metaFile, "utf8")
    .then(async (text) =>
      (await import("./daemon-meta-schema.js")).daemonMetaSchema.safeParse(JSON.parse(text)),
    )
    .then((parsed) => (parsed.success ? parsed.data : undefined))
    .catch(() => undefined);
  const pidText = await readFile(paths.pidFile, "utf8").catch(() => undefined);
  const pid = pidText && /^\d+\s*$/.test(pidText) ? Number.parseInt(pidText, 10) : undefined;
  if (!meta && pid === undefined) {
    // Unreadable leftovers still count as found, so callers clean them up.
    return pidText !== undefined || existsSync(paths.metaFile) ? {} : undefined;
  }
  return { ...(meta ? { meta } : {}), ...(pid !== undefined ? { pid } : meta ? { pid: meta.pid } : {}) };
}

/** Removes `daemon.pid` and `daemon.json`, but only when they still name `pid` (a successor may own them). */
export async function removeDaemonMeta(rootDir: string, pid?: number): Promise<void> {
  const paths = daemonPaths(rootDir);
  if (pid !== undefined) {
    const current = await readDaemonMeta(rootDir);
    if (current?.pid !== undefined && current.pid !== pid) return;
  }
  await rm(paths.metaFile, { force: true });
  await rm(paths.pidFile, { force: true });
}
