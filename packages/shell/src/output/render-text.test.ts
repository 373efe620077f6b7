import { randomBytes } from "node:crypto";
import { describe, expect, test } from "vitest";
import { collapseCarriageReturns, renderText, stripAnsi } from "./render-text.js";

describe("renderText", () => {
  test("strips colours, cursor moves and OSC titles", () => {
    expect(stripAnsi("\x1b[31mred\x1b[0m \x1b]0;title\x07done \x1b[?2004l\x1b[2K")).toBe("red done ");
  });

  test("collapses carriage-return progress bars to their last state", () => {
    expect(collapseCarriageReturns("start\n 10%\r 50%\r100%\ndone\r\n")).toBe("start\n100%\ndone\n");
  });

  test("summarises binary output and drops stray NUL bytes in text", () => {
    expect(renderText(randomBytes(4096), "/tmp/x.log")).toMatch(
      /^\[binary output: 4096 bytes not shown; raw bytes are in \/tmp\/x.log\]$/,
    );
    expect(renderText(Buffer.from("a\0b\n"))).toBe("ab\n");
  });
});
