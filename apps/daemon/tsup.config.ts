import { defineConfig } from "tsup";

// daemon-main and console-main are the scripts detached processes run; they sit beside index.js.
export default defineConfig({
  entry: ["src/index.ts", "src/daemon-main.ts", "src/console-main.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  target: "node20",
  sourcemap: true,
});
