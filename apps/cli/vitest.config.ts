import { defineConfig } from "vitest/config";

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: {
    name: "@downcity/cli",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The end-to-end scenarios run several CLI commands, each bounded by its own step limit (a run
    // is killed after it) and polling with deadlines that scale: the scenario itself has no budget
    // that a busy machine could exhaust. This bound only ends a test that hangs outright.
    testTimeout: 600000,
    hookTimeout: 600000,
    globalSetup: ["test/global-setup.ts"],
  },
});
