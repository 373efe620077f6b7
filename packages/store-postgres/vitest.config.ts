import { defineConfig } from "vitest/config";

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build;
// no "import" condition: Node would then resolve pg's require("pg-pool") to its ESM build and break it.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "node", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "node", "default"] } },
  test: {
    name: "@downcity/store-postgres",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60000,
    hookTimeout: 60000,
  },
});
