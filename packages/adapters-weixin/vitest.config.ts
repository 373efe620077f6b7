import { defineConfig } from "vitest/config";

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: {
    name: "@downcity/adapters-weixin",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30000,
    hookTimeout: 30000,
  },
});
