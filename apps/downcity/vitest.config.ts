import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "downcity",
    include: ["src/**/*.test.ts"],
  },
});
