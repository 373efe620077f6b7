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
});
