/**
 * Bundles what a test runs in a child process from this run's TypeScript sources (the `downcity-source`
 * condition), never from a `dist` that may be stale. Its own entry (`@downcity/testkit/bundle`), so only
 * tests that spawn children load tsup.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "tsup";

/** What to bundle, where, and which imports go inside. */
export interface SourceBundle {
  /** Output name (without extension) to source file. */
  entry: Record<string, string>;
  outDir: string;
  /**
   * Which imports the bundle holds: `"all"` (it runs from a folder with no node_modules), `"ours"`
   * (`@downcity/*` from source; third parties resolve from node_modules beside it) or `"none"`.
   */
  inline: "all" | "ours" | "none";
  /** Imports kept outside even when `inline` would take them (native addons, a driver). */
  external?: string[];
  /** Gives the ESM bundle a `require`, for bundled CommonJS dependencies that call it. */
  requireShim?: boolean;
  /** Empties `outDir` first [false]. */
  clean?: boolean;
  /** Writes a source map beside each output file, e.g. to attribute a CPU profile to sources [false]. */
  sourcemap?: boolean;
  /** The output file extension [".js"]. */
  extension?: ".js" | ".mjs";
  /**
   * Makes `outDir` an installed package of this name (a `package.json` whose export is `./index.js`), so
   * a project that has it in its node_modules loads it by name, as from an npm install.
   */
  packageName?: string;
}

const requireBanner =
  'import { createRequire as __downcityCreateRequire } from "node:module"; const require = __downcityCreateRequire(import.meta.url);';

/** Bundles `entry` into `outDir` as ESM for Node 20, resolving workspace packages to their sources. */
export async function bundleFromSource(bundle: SourceBundle): Promise<void> {
  // tsup bundles what `noExternal` names even when `external` names it too: leave the externals out.
  const kept = (bundle.external ?? []).map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  const everything = kept.length > 0 ? new RegExp(`^(?!(?:${kept.join("|")})(?:/|$))`) : /.*/;
  const inline = { all: [everything], ours: [/^@downcity\//], none: [] }[bundle.inline];
  await build({
    config: false,
    entry: bundle.entry,
    outDir: bundle.outDir,
    format: ["esm"],
    platform: "node",
    target: "node20",
    dts: false,
    silent: true,
    splitting: false,
    clean: bundle.clean ?? false,
    sourcemap: bundle.sourcemap ?? false,
    noExternal: inline,
    ...(bundle.external ? { external: bundle.external } : {}),
    ...(bundle.requireShim ? { banner: { js: requireBanner } } : {}),
    ...(bundle.extension === ".mjs" ? { outExtension: () => ({ js: ".mjs" }) } : {}),
    esbuildOptions(options) {
      options.conditions = ["downcity-source"];
    },
  });
  if (bundle.packageName) {
    const manifest = { name: bundle.packageName, type: "module", exports: "./index.js" };
    await writeFile(join(bundle.outDir, "package.json"), JSON.stringify(manifest));
  }
}
