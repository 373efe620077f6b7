import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { readJsonl, readJsonlTail } from "./jsonl-file.js";

const temp = useTempDir("downcity-jsonl-", "each");

interface Row {
  id: string;
}
const isRow = (value: unknown): value is Row =>
  typeof value === "object" && value !== null && typeof (value as Row).id === "string";

/** A deterministic mix of records, malformed lines, records that fail validation and blank lines. */
function lines(count: number, seed: number, padding = 0): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return Array.from({ length: count }, (_, index) => {
    const roll = next();
    if (roll < 0.06) return `not json ${index}`;
    if (roll < 0.1) return JSON.stringify({ other: index });
    if (roll < 0.13) return "";
    return JSON.stringify({ id: `r${index}`, pad: "x".repeat(padding) });
  });
}

describe("readJsonlTail", () => {
  it("answers the newest records of a full read, whatever lies among and before them", async () => {
    // 3,000 lines of ~100 bytes span several 64 KiB chunks; the seeds vary where malformed lines fall.
    for (const seed of [1, 7, 42]) {
      const path = join(temp.path, `rows-${seed}.jsonl`);
      const written = lines(3000, seed, 80);
      await writeFile(path, `${written.join("\n")}\n`);
      const all = (await readJsonl(path, isRow)).records;
      for (const count of [1, 2, 50, 201, 700, 2999, 5000]) {
        const label = `seed ${seed}, last ${count}`;
        const tail = await readJsonlTail(path, count, isRow);
        // The newest records, in order, at most `count`, and at least those of the last `count` lines.
        expect(tail.records, label).toEqual(all.slice(all.length - tail.records.length));
        expect(tail.records.length, label).toBeLessThanOrEqual(count);
        const inLastLines = written.slice(-count).filter((line) => line.startsWith('{"id"')).length;
        expect(tail.records.length, label).toBeGreaterThanOrEqual(inLastLines);
        expect(tail.reachedStart, label).toBe(count >= all.length);
      }
    }
  });

  it("names the malformed lines it skipped, numbered from the start of what it read", async () => {
    const path = join(temp.path, "rows.jsonl");
    const text = [
      "early garbage",
      JSON.stringify({ id: "a" }),
      "broken {",
      JSON.stringify({ id: "b" }),
      JSON.stringify({ other: 1 }),
      "",
      JSON.stringify({ id: "c" }),
    ];
    await writeFile(path, `${text.join("\n")}\n`);
    const tail = await readJsonlTail(path, 2, isRow);
    expect(tail.records.map((row) => row.id)).toEqual(["b", "c"]);
    // Line 5 lies among the last two records; lines 1 and 3 lie before them and are not parsed.
    expect(tail.malformed.map((entry) => entry.line)).toEqual([5]);
    expect(tail.reachedStart).toBe(false);
    const wider = await readJsonlTail(path, 3, isRow);
    expect(wider.records.map((row) => row.id)).toEqual(["a", "b", "c"]);
    expect(wider.malformed.map((entry) => entry.line)).toEqual([3, 5]);
    const whole = await readJsonlTail(path, 10, isRow);
    expect(whole.malformed.map((entry) => entry.line)).toEqual([1, 3, 5]);
    expect(whole.reachedStart).toBe(true);
  });

  it("ignores a last line still being written and blank lines before the first record", async () => {
    const path = join(temp.path, "rows.jsonl");
    await writeFile(path, `\n\n${JSON.stringify({ id: "a" })}\n${JSON.stringify({ id: "b" })}\n{"id":"c`);
    const tail = await readJsonlTail(path, 2, isRow);
    expect(tail.records.map((row) => row.id)).toEqual(["a", "b"]);
    expect(tail.reachedStart).toBe(true);
    expect((await readJsonlTail(join(temp.path, "missing.jsonl"), 5, isRow)).records).toEqual([]);
  });
});
