import { describe, expect, it } from "vitest";
import { createColors } from "./colors.js";

describe("createColors", () => {
  it("follows the terminal unless NO_COLOR or FORCE_COLOR says otherwise", () => {
    expect(createColors({ env: {}, isTTY: true }).enabled).toBe(true);
    expect(createColors({ env: {}, isTTY: false }).enabled).toBe(false);
    expect(createColors({ env: { NO_COLOR: "1" }, isTTY: true }).enabled).toBe(false);
    expect(createColors({ env: { FORCE_COLOR: "1" }, isTTY: false }).enabled).toBe(true);
    expect(createColors({ env: { FORCE_COLOR: "0" }, isTTY: true }).enabled).toBe(false);
    expect(createColors({ env: { FORCE_COLOR: "1", NO_COLOR: "1" }, isTTY: false }).enabled).toBe(true);
    expect(createColors({ env: { NO_COLOR: "" }, isTTY: true }).enabled).toBe(true);
  });

  it("styles only when enabled", () => {
    expect(createColors({ env: {}, isTTY: false }).dim("x")).toBe("x");
    expect(createColors({ env: {}, isTTY: true }).red("x")).toBe("\u001b[31mx\u001b[39m");
  });
});
