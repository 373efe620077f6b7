import { defineConfig } from "vite";
import { initialScriptBudget } from "./src/build/initial-script-budget.js";

// Built once at build time into dist/ and served by the user-level console; nothing loads from
// the network at run time.
export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    // A strict CSP forbids inline script: never inline assets as data: URLs or scripts.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  plugins: [initialScriptBudget({ maxGzipBytes: 150 * 1024 })],
});
