import { JSONParseError } from "ai";
import { describe, expect, it } from "vitest";
import { errorMessageOf, parseToolJson, toolOutputs } from "./tool-json.js";

describe("tool input JSON", () => {
  it("parses JSON and refuses prototype poisoning and broken text with a JSONParseError", () => {
    expect(parseToolJson('{"a":[1,{"b":"c"}]}')).toEqual({ success: true, value: { a: [1, { b: "c" }] } });
    for (const text of [
      '{"__proto__":{"admin":true}}',
      '{"x":{"constructor":{"prototype":{"y":1}}}}',
      "{oops",
    ]) {
      const parsed = parseToolJson(text);
      expect(parsed.success).toBe(false);
      if (!parsed.success) expect(JSONParseError.isInstance(parsed.error)).toBe(true);
    }
    expect(parseToolJson('{"constructor":"a string is fine"}').success).toBe(true);
  });

  it("tells the model an error's message, a string as is, anything else as JSON", () => {
    expect(errorMessageOf(new Error("disk full"))).toBe("disk full");
    expect(errorMessageOf("plain")).toBe("plain");
    expect(errorMessageOf({ code: 7 })).toBe('{"code":7}');
    expect(errorMessageOf(undefined)).toBe("unknown error");
  });

  it("reports each value a tool yields and ends with the last; a plain result is final", async () => {
    async function* counting() {
      yield 1;
      yield 2;
    }
    const seen: unknown[] = [];
    for await (const part of toolOutputs(counting())) seen.push(part);
    expect(seen).toEqual([
      { type: "preliminary", output: 1 },
      { type: "preliminary", output: 2 },
      { type: "final", output: 2 },
    ]);
    const plain: unknown[] = [];
    for await (const part of toolOutputs(Promise.resolve("done"))) plain.push(part);
    expect(plain).toEqual([{ type: "final", output: "done" }]);
  });
});
