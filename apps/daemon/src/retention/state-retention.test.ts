import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DowncityConfig } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { startStateRetention } from "./state-retention.js";

const silent = { debug() {}, info() {}, warn() {}, error() {}, child: () => silent } as never;
let rootDir: string;
afterEach(async () => {
  await rm(rootDir, { recursive: true, force: true });
});

describe("usage retention", () => {
  it("prunes usage day files and the store's usage records older than usage.retainDays", async () => {
    rootDir = await mkdtemp(join(tmpdir(), "dc-retention-"));
    const usageDir = join(rootDir, ".downcity", "usage");
    await mkdir(usageDir, { recursive: true });
    for (const day of ["2026-01-01", "2026-02-28", "2026-03-10"])
      await writeFile(join(usageDir, `${day}.jsonl`), "");
    const cutoffs: Date[] = [];
    const retention = startStateRetention({
      rootDir,
      config: { usage: { retainDays: 10 } } as unknown as DowncityConfig,
      logger: silent,
      usage: {
        async prune(before) {
          cutoffs.push(before);
          return 3;
        },
      },
      now: () => new Date("2026-03-11T12:00:00Z"),
    });
    await retention.pruned;
    retention.stop();
    expect((await readdir(usageDir)).sort()).toEqual(["2026-03-10.jsonl"]);
    expect(cutoffs.map((date) => date.toISOString())).toEqual(["2026-03-01T12:00:00.000Z"]);
  });
});
