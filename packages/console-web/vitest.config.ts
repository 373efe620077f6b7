import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "@downcity/console-web",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
