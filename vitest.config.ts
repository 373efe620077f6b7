import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      "packages/*",
      "apps/*",
      { test: { name: "boundaries", include: ["scripts/*.test.ts"], environment: "node" } },
    ],
  },
});
