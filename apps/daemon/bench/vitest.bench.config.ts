import { defineConfig } from "vitest/config";

// Benchmarks run as one long vitest file against real daemon processes; figures go to bench/results.json.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: {
    name: "@downcity/daemon-bench",
    include: ["bench/**/*.bench.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 300000,
    hookTimeout: 60000,
    fileParallelism: false,
  },
});
