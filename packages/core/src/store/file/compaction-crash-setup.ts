import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The compaction crash child, bundled from this run's sources. */
    compactionCrashChild: string;
    /** `@downcity/core` bundled from this run's sources, for child processes that import it. */
    coreBundle: string;
  }
}

/** Vitest global setup: bundles the crash-test children from source, so they never run a stale dist. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // One folder per run: concurrent runs on one checkout must not clean each other's bundles.
  const outDir = fileURLToPath(
    new URL(`../../../node_modules/.cache/downcity-core-test/${process.pid}`, import.meta.url),
  );
  await build({
    config: false,
    entry: {
      "compaction-crash-child": fileURLToPath(new URL("./compaction-crash-child.ts", import.meta.url)),
      core: fileURLToPath(new URL("../../index.ts", import.meta.url)),
    },
    outDir,
    format: ["esm"],
    outExtension: () => ({ js: ".mjs" }),
    platform: "node",
    target: "node20",
    dts: false,
    silent: true,
    clean: true,
    splitting: false,
  });
  project.provide("compactionCrashChild", `${outDir}/compaction-crash-child.mjs`);
  project.provide("coreBundle", `${outDir}/core.mjs`);
  return () => rm(outDir, { recursive: true, force: true });
}
