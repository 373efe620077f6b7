import { describe, expect, it } from "vitest";
import { formatDuration } from "./format-duration.js";

describe("formatDuration", () => {
  it("uses the two largest units", () => {
    expect(formatDuration(45_000)).toBe("45s");
    expect(formatDuration(12 * 60_000 + 3000)).toBe("12m 3s");
    expect(formatDuration(3 * 3_600_000 + 5 * 60_000)).toBe("3h 5m");
    expect(formatDuration(2 * 86_400_000 + 4 * 3_600_000)).toBe("2d 4h");
    expect(formatDuration(-5)).toBe("0s");
  });
});
