import { describe, expect, it } from "vitest";
import { displayWidth } from "./display-width.js";
import { layoutTable } from "./layout-table.js";

describe("layoutTable", () => {
  it("pads columns to their widest cell, aligned as the delimiter row says", () => {
    expect(
      layoutTable(
        [
          ["left", "mid", "right"],
          ["a", "b", "c"],
        ],
        ["left", "center", "right"],
      ),
    ).toBe("left | mid | right\n-----+-----+------\na    |  b  |     c");
  });

  it("fills missing cells, keeps each cell on one line and drops trailing spaces", () => {
    expect(layoutTable([["k", "v"], ["only"], ["x", "two\nlines"]])).toBe(
      "k    | v\n-----+----------\nonly |\nx    | two lines",
    );
    expect(layoutTable([])).toBe("");
  });

  it("counts East Asian wide characters and emoji as two columns, combining marks as none", () => {
    expect(displayWidth("中文ab")).toBe(6);
    expect(displayWidth("😀")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(
      layoutTable([
        ["名前", "n"],
        ["ab", "1"],
      ]),
    ).toBe("名前 | n\n-----+--\nab   | 1");
  });
});
