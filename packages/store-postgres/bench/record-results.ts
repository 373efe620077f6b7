import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("results.json", import.meta.url);

/** Merges `figures` into bench/results.json, keeping the other benchmarks' figures. */
export function recordResults(figures: Record<string, number | string>): void {
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // First run: a new file.
  }
  writeFileSync(file, `${JSON.stringify({ ...current, ...figures }, null, 2)}\n`);
}
