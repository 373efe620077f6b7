import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

// The SDK is CommonJS (`require("ws")`): with the "import" condition Node's require would hand it ws's ESM
// wrapper ("WebSocket is not a constructor"), so tests resolve as Node does in production, without it.
const sdk = createRequire(import.meta.url).resolve("@wecom/aibot-node-sdk");

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: {
    conditions: ["downcity-source", "node", "default"],
    alias: { "@wecom/aibot-node-sdk": sdk },
  },
  ssr: { resolve: { conditions: ["downcity-source", "node", "default"] } },
  test: {
    name: "@downcity/adapters-wecom",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60000,
    hookTimeout: 60000,
  },
});
