import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: ["src/index.ts", "src/console-main.ts", "src/client.ts", "src/status.ts"],
    format: ["esm"],
    dts: { entry: ["src/index.ts", "src/client.ts", "src/status.ts"] },
    clean: true,
    target: "node20",
    sourcemap: true,
  },
  {
    // The detached daemon bundles every JavaScript dependency into one file: resolving and loading
    // hundreds of package modules was most of its cold start. node-pty stays external (native addon),
    // and so does web-tree-sitter (the allowed-tools parser), which loads its .wasm beside its module.
    entry: ["src/daemon-main.ts"],
    format: ["esm"],
    target: "node20",
    sourcemap: true,
    splitting: true,
    outDir: "dist",
    noExternal: [/^(?!node-pty|web-tree-sitter)/],
    external: ["node-pty", "web-tree-sitter"],
    banner: {
      js: "import { createRequire as __downcityCreateRequire } from 'node:module'; const require = __downcityCreateRequire(import.meta.url);",
    },
  },
]);
