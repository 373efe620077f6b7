import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { initialScriptBytes } from "./initial-script-budget.js";

describe("initialScriptBytes", () => {
  it("counts the entry and its static imports, not lazily loaded chunks", () => {
    // Random text barely compresses, so counting it would show.
    const big = randomBytes(10_000).toString("base64");
    const result = initialScriptBytes([
      { fileName: "entry.js", code: "import './shared.js'", isEntry: true, imports: ["shared.js"] },
      { fileName: "shared.js", code: "export const a = 1", isEntry: false, imports: [] },
      { fileName: "lazy.js", code: big, isEntry: false, imports: [] },
    ]);
    expect(result.files.sort()).toEqual(["entry.js", "shared.js"]);
    expect(result.gzipBytes).toBeGreaterThan(0);
    expect(result.gzipBytes).toBeLessThan(200);
  });
});
