import { defineConfig } from "vitest/config";

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: {
    name: "@downcity/core",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Crash tests run real child processes: they are bundled from the sources of this run.
    globalSetup: ["src/store/file/compaction-crash-setup.ts"],
    testTimeout: 30000,
    hookTimeout: 30000,
  },
});
