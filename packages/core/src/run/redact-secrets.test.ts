import { describe, expect, it } from "vitest";
import { createRedactor } from "./redact-secrets.js";

describe("createRedactor", () => {
  const redact = createRedactor(["sk-live-123456", "tg:token:abcdef", "short"]);

  it("masks configured secret values wherever they appear, and Authorization-like headers", () => {
    const input = {
      text: "key is sk-live-123456, token tg:token:abcdef",
      nested: [{ headers: { Authorization: "Bearer anything", "content-type": "json" } }],
      short: "a short word",
    };
    expect(redact(input)).toEqual({
      text: "key is [redacted], token [redacted]",
      nested: [{ headers: { Authorization: "[redacted]", "content-type": "json" } }],
      short: "a short word",
    });
    expect(input.text).toContain("sk-live-123456");
  });

  it("passes values without secrets through unchanged", () => {
    expect(redact({ a: 1, b: null, c: ["x"] })).toEqual({ a: 1, b: null, c: ["x"] });
  });

  it("shares the parts without secrets and never changes its input", () => {
    const clean = { text: "nothing here", list: [{ n: 1 }] };
    expect(redact(clean)).toBe(clean);
    const input = { clean: clean.list, dirty: [{ key: "sk-live-123456" }], bytes: new Uint8Array(3) };
    const output = redact(input);
    expect(output).toEqual({ clean: [{ n: 1 }], dirty: [{ key: "[redacted]" }], bytes: "[3 bytes]" });
    expect(output.clean).toBe(input.clean);
    expect(input.dirty[0]?.key).toBe("sk-live-123456");
    expect(input.bytes).toBeInstanceOf(Uint8Array);
  });
});
