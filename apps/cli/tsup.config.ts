import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/main.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
  sourcemap: true,
  // What `downcity` loads before it knows the command is compiled in: commander (as CommonJS it
  // went through seven files, the CJS loader and its export lexer) and the light workspace entries
  // that `status` and command registration need. Each loaded file costs start-up time; what only
  // one command needs stays a dynamic import in its own chunk.
  noExternal: ["commander", "@downcity/core/primitives", "@downcity/daemon/status"],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __downcityCreateRequire } from 'node:module'; const require = __downcityCreateRequire(import.meta.url);",
  },
});
