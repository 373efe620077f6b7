import { describe, expect, it } from "vitest";
import { scaledMs, testTimeScale } from "./time-scale.js";

describe("testTimeScale", () => {
  it("is 1 on a developer machine and 2 under CI", () => {
    expect(testTimeScale({})).toBe(1);
    expect(testTimeScale({ CI: "true" })).toBe(2);
    expect(testTimeScale({ CI: "false" })).toBe(1);
  });

  it("takes DOWNCITY_TEST_TIME_SCALE over CI, and rejects a scale below 1", () => {
    expect(testTimeScale({ CI: "true", DOWNCITY_TEST_TIME_SCALE: "4.5" })).toBe(4.5);
    expect(() => testTimeScale({ DOWNCITY_TEST_TIME_SCALE: "0.5" })).toThrow(/>= 1/);
    expect(() => testTimeScale({ DOWNCITY_TEST_TIME_SCALE: "fast" })).toThrow(/"fast"/);
  });

  it("stretches a deadline by the scale", () => {
    expect(scaledMs(1000, { DOWNCITY_TEST_TIME_SCALE: "3" })).toBe(3000);
    expect(scaledMs(1000, {})).toBe(1000);
  });
});
