import { readFileSync } from "node:fs";

/**
 * The version of package `name`, read from the nearest of its package.json files above `moduleUrl`
 * (a module's `import.meta.url`, from either `src/` or a bundled `dist/`); `0.0.0` when not found.
 */
export function packageVersion(moduleUrl: string | URL, name: string): string {
  let url = new URL("./package.json", moduleUrl);
  for (let level = 0; level < 4; level++) {
    url = new URL("../package.json", url);
    try {
      const parsed = JSON.parse(readFileSync(url, "utf8")) as { name?: string; version?: string };
      if (parsed.name === name && parsed.version) return parsed.version;
    } catch {
      // No package.json at this level; look one higher.
    }
  }
  return "0.0.0";
}
