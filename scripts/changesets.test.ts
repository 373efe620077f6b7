import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// `changeset version` refuses the whole set when one file has broken front matter; catch it in CI.
const dir = join(import.meta.dirname, "..", ".changeset");
const packages = new Set(
  ["packages", "apps"].flatMap((group) =>
    readdirSync(join(import.meta.dirname, "..", group)).map(
      (entry) =>
        JSON.parse(readFileSync(join(import.meta.dirname, "..", group, entry, "package.json"), "utf8")).name,
    ),
  ),
);

describe("changesets", () => {
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".md") && name !== "README.md")) {
    it(`${file} has valid front matter naming workspace packages`, () => {
      const text = readFileSync(join(dir, file), "utf8");
      const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
      expect(match, "front matter delimited by --- lines").not.toBeNull();
      const lines = (match?.[1] ?? "").split("\n").filter((line) => line.trim());
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        const entry = /^"(@downcity\/[a-z-]+|downcity)": (major|minor|patch)$/.exec(line);
        expect(entry, line).not.toBeNull();
        expect(packages.has(entry?.[1])).toBe(true);
      }
      expect(text.slice(match?.[0].length ?? 0).trim().length).toBeGreaterThan(0);
    });
  }
});
