import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTempDir } from "./temp-dir.js";
import { useTempDir } from "./vitest.js";

describe("createTempDir", () => {
  it("creates a fresh directory under the temporary folder and removes it with its contents", async () => {
    const dir = await createTempDir("downcity-testkit-");
    expect(dirname(dir.path)).toBe(tmpdir());
    expect(basename(dir.path)).toMatch(/^downcity-testkit-/);
    writeFileSync(join(dir.path, "file.txt"), "x");
    await dir.remove();
    expect(existsSync(dir.path)).toBe(false);
    await dir.remove();
  });
});

describe("useTempDir", () => {
  const each = useTempDir("downcity-testkit-each-", "each");
  const seen: string[] = [];

  it("gives every test its own directory when scoped to each test", () => {
    expect(existsSync(each.path)).toBe(true);
    seen.push(each.path);
  });

  it("removes the previous test's directory before the next", () => {
    expect(seen).toHaveLength(1);
    expect(each.path).not.toBe(seen[0]);
    expect(existsSync(seen[0] as string)).toBe(false);
  });
});
