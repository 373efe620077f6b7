import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { downcityPaths, writeFileAtomic } from "@downcity/core/primitives";
import type { ServiceListing } from "../daemon/load-daemon-api.js";

/** The service schemas the CLI last saw from a project's daemon, and when. */
export interface ServiceSchemaCache {
  savedAt: string;
  services: ServiceListing[];
}

/** The cache file's schema; zod loads only when there is a file to check (help without a daemon stays light). */
async function cacheSchema() {
  const { z } = await import("zod");
  return z.object({
    savedAt: z.string(),
    services: z.array(
      z.object({
        name: z.string(),
        description: z.string().optional(),
        actions: z.array(
          z.object({ name: z.string(), description: z.string().optional(), inputSchema: z.unknown() }),
        ),
      }),
    ),
  });
}

/** `.downcity/cache/cli-schema.json` of the project at `rootDir` (a cache: deleting it is always safe). */
export function serviceSchemaCachePath(rootDir: string): string {
  return join(downcityPaths(rootDir).cacheDir, "cli-schema.json");
}

/**
 * Saves the daemon's service schemas so `downcity <service> --help` can still show them when the
 * daemon is down. Only an initialised project (one with `.downcity/`) gets a cache.
 */
export async function writeServiceSchemaCache(
  rootDir: string,
  services: ServiceListing[],
  now: Date,
): Promise<void> {
  const paths = downcityPaths(rootDir);
  if (!existsSync(paths.stateDir)) return;
  const cache: ServiceSchemaCache = {
    savedAt: now.toISOString(),
    services: services.map(({ name, description, actions }) => ({
      name,
      ...(description === undefined ? {} : { description }),
      actions,
    })),
  };
  await mkdir(paths.cacheDir, { recursive: true });
  await writeFileAtomic(serviceSchemaCachePath(rootDir), `${JSON.stringify(cache, null, 2)}\n`);
}

/** The cached service schemas of the project at `rootDir`, or undefined when none (or an unreadable one) exists. */
export async function readServiceSchemaCache(rootDir: string): Promise<ServiceSchemaCache | undefined> {
  let text: string;
  try {
    text = await readFile(serviceSchemaCachePath(rootDir), "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed = (await cacheSchema()).safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data as ServiceSchemaCache) : undefined;
  } catch {
    return undefined;
  }
}
