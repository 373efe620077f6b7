import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import type { ServiceListing } from "../daemon/load-daemon-api.js";
import {
  readServiceSchemaCache,
  serviceSchemaCachePath,
  writeServiceSchemaCache,
} from "./service-schema-cache.js";

const services: ServiceListing[] = [
  {
    name: "shell",
    description: "Shell sessions",
    state: "running",
    actions: [{ name: "list", inputSchema: { type: "object", properties: {} } }],
  },
];

describe("service schema cache", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("round-trips the schemas of an initialised project, without run-time state", async () => {
    dir = await mkdtemp(join(tmpdir(), "downcity-schema-cache-"));
    await mkdir(join(dir, ".downcity"));
    await writeServiceSchemaCache(dir, services, new Date("2026-03-04T05:06:07.000Z"));
    expect(serviceSchemaCachePath(dir)).toBe(join(dir, ".downcity", "cache", "cli-schema.json"));
    expect(await readServiceSchemaCache(dir)).toEqual({
      savedAt: "2026-03-04T05:06:07.000Z",
      services: [{ name: "shell", description: "Shell sessions", actions: services[0]?.actions }],
    });
  });

  test("never creates .downcity/ in a folder that is not a project", async () => {
    dir = await mkdtemp(join(tmpdir(), "downcity-schema-cache-"));
    await writeServiceSchemaCache(dir, services, new Date());
    expect(existsSync(join(dir, ".downcity"))).toBe(false);
    expect(await readServiceSchemaCache(dir)).toBeUndefined();
  });

  test("treats a damaged cache as absent", async () => {
    dir = await mkdtemp(join(tmpdir(), "downcity-schema-cache-"));
    await mkdir(join(dir, ".downcity", "cache"), { recursive: true });
    await writeFile(serviceSchemaCachePath(dir), "{ not json");
    expect(await readServiceSchemaCache(dir)).toBeUndefined();
    await writeFile(serviceSchemaCachePath(dir), JSON.stringify({ savedAt: 1, services: "x" }));
    expect(await readServiceSchemaCache(dir)).toBeUndefined();
  });
});
