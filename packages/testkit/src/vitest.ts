/**
 * The test kit's vitest hooks, apart from the main entry so that processes a test spawns can import
 * `@downcity/testkit` without loading vitest.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { createTempDir, type TempDir } from "./temp-dir.js";

/** A temporary directory the hooks create and remove; `path` is valid inside tests and later hooks. */
export interface TempDirHandle {
  readonly path: string;
}

/**
 * Registers hooks that create a temporary directory (`<tmpdir>/<prefix>…`) before the tests and remove
 * it after them: once for the file or `describe` [`"all"`], or afresh for every test (`"each"`).
 */
export function useTempDir(prefix: string, scope: "all" | "each" = "all"): TempDirHandle {
  let current: TempDir | undefined;
  const [before, after] = scope === "all" ? [beforeAll, afterAll] : [beforeEach, afterEach];
  before(async () => {
    current = await createTempDir(prefix);
  });
  after(async () => {
    await current?.remove();
    current = undefined;
  });
  return {
    get path() {
      if (!current) throw new Error(`the temporary directory "${prefix}…" exists only while its tests run`);
      return current.path;
    },
  };
}
