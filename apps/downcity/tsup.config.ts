import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const manifest = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>;
};

// The CLI and the daemon (private workspace apps) are compiled from their sources into this package;
// everything they import at run time stays a dependency, so first-party @downcity/* plug-ins and the
// PTY binary resolve from the install like any package.
export default defineConfig({
  entry: ["src/main.ts", "src/daemon-main.ts", "src/console-main.ts"],
  format: ["esm"],
  target: "node20",
  platform: "node",
  splitting: true,
  clean: true,
  sourcemap: true,
  noExternal: ["@downcity/cli", "@downcity/daemon"],
  external: Object.keys(manifest.dependencies).flatMap((name) => [name, new RegExp(`^${name}/`)]),
  banner: { js: "#!/usr/bin/env node" },
  esbuildOptions(options) {
    options.conditions = ["downcity-source"];
    // The entries are side-effect imports of packages marked `sideEffects: false`; keep them.
    options.ignoreAnnotations = true;
  },
});
