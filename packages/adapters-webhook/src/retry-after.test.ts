import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after.js";

describe("parseRetryAfter", () => {
  const now = () => Date.parse("2026-01-01T00:00:00Z");

  it("reads delay-seconds and HTTP dates", () => {
    expect(parseRetryAfter("0", now)).toBe(0);
    expect(parseRetryAfter(" 12 ", now)).toBe(12_000);
    expect(parseRetryAfter("1.5", now)).toBe(1500);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });

  it("returns undefined for absent or unreadable values", () => {
    for (const value of [undefined, null, "", "-5", "soon", "12s", "1e3"])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
