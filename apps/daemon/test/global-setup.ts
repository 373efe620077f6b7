import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { bundleFromSource } from "@downcity/testkit/bundle";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    daemonEntry: string;
    consoleEntry: string;
  }
}

// Real daemon processes need a runnable script: bundle daemon-main from the TypeScript sources of
// this package and its workspace dependencies (downcity-source), keeping npm packages external.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // One folder per run: concurrent runs on one checkout must not clean each other's bundles.
  const outDir = fileURLToPath(
    new URL(`../node_modules/.cache/downcity-daemon-test/${process.pid}`, import.meta.url),
  );
  await bundleFromSource({
    entry: {
      "daemon-main": fileURLToPath(new URL("../src/daemon-main.ts", import.meta.url)),
      "console-main": fileURLToPath(new URL("../src/console-main.ts", import.meta.url)),
    },
    outDir,
    clean: true,
    inline: "ours",
    external: ["node-pty"],
    // Bundled CommonJS dependencies of feature packages call require().
    requireShim: true,
  });
  project.provide("daemonEntry", `${outDir}/daemon-main.js`);
  project.provide("consoleEntry", `${outDir}/console-main.js`);
  return () => rm(outDir, { recursive: true, force: true });
}
