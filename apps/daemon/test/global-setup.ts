import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "tsup";
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
  await build({
    config: false,
    entry: {
      "daemon-main": fileURLToPath(new URL("../src/daemon-main.ts", import.meta.url)),
      "console-main": fileURLToPath(new URL("../src/console-main.ts", import.meta.url)),
    },
    outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    silent: true,
    clean: true,
    splitting: false,
    noExternal: [/^@downcity\//],
    external: ["node-pty"],
    // Bundled CommonJS dependencies of feature packages call require(); give the ESM bundle one.
    banner: {
      js: 'import { createRequire as __downcityCreateRequire } from "node:module"; const require = __downcityCreateRequire(import.meta.url);',
    },
    esbuildOptions(options) {
      options.conditions = ["downcity-source"];
    },
  });
  project.provide("daemonEntry", `${outDir}/daemon-main.js`);
  project.provide("consoleEntry", `${outDir}/console-main.js`);
  return () => rm(outDir, { recursive: true, force: true });
}
