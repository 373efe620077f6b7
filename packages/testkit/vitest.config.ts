import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "@downcity/testkit", include: ["src/**/*.test.ts"] },
});
