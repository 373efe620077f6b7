import { defineConfig } from "vitest/config";

// The benchmarks run on the same throwaway server as the tests: `pnpm bench`.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "node", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "node", "default"] } },
  test: {
    name: "@downcity/store-postgres bench",
    root: new URL("..", import.meta.url).pathname,
    include: ["bench/**/*.bench-run.ts"],
    globalSetup: ["bench/global-setup.ts"],
    // One benchmark at a time: the worker-cluster one would load the machine under the other.
    fileParallelism: false,
    testTimeout: 300000,
    hookTimeout: 60000,
  },
});
