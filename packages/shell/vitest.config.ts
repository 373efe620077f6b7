import { defineConfig } from "vitest/config";

// Floods of 200 MB (and the 10 MB interleaved flood of streams.test.ts), hundreds of PTY cycles and the exit race load both cores: they run in their own
// project, one file at a time, after the other tests (sequence.groupOrder), never beside tests that
// assert upper time bounds.
const heavy = [
  "src/engine/flood.test.ts",
  "src/engine/pty-cycles.test.ts",
  "src/engine/exit-race.test.ts",
  "src/engine/streams.test.ts",
];

// "downcity-source" resolves workspace packages to their TypeScript sources, so tests need no prior build.
export default defineConfig({
  resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["downcity-source", "module", "node", "import", "default"] } },
  test: {
    testTimeout: 30000,
    hookTimeout: 30000,
    projects: [
      {
        extends: true,
        test: { name: "@downcity/shell", include: ["src/**/*.test.ts", "test/**/*.test.ts"], exclude: heavy },
      },
      {
        extends: true,
        test: {
          name: "@downcity/shell:heavy",
          include: heavy,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          testTimeout: 120000,
        },
      },
    ],
  },
});
