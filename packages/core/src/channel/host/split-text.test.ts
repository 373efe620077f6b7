import { describe, expect, it } from "vitest";
import { splitText } from "./split-text.js";

describe("splitText", () => {
  it("keeps short text whole and splits long text on paragraphs, then lines, then spaces", () => {
    expect(splitText("hello", 10)).toEqual(["hello"]);
    expect(splitText("aaaa\n\nbbbb\ncccc", 10)).toEqual(["aaaa", "bbbb\ncccc"]);
    expect(splitText("aaaa bbbb cccc", 10)).toEqual(["aaaa bbbb", "cccc"]);
    expect(splitText("x".repeat(25), 10)).toEqual(["x".repeat(10), "x".repeat(10), "x".repeat(5)]);
  });

  it("never exceeds the limit, never splits a surrogate pair, and loses no text but the break itself", () => {
    const text = `${"word ".repeat(300)}\n\n${"😀".repeat(50)}\nend`;
    const chunks = splitText(text, 97);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(97);
    for (const chunk of chunks) expect(chunk).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    expect(chunks.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
  });
});
