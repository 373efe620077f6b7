import { describe, expect, it } from "vitest";
import { renderPlainText } from "./plain-text.js";

describe("renderPlainText", () => {
  it("drops the markers and keeps the words", () => {
    expect(renderPlainText("# Title\n\n**bold** _it_ ~~old~~ `code` <u>u</u>")).toBe(
      "Title\n\nbold it old code u",
    );
  });

  it("keeps link targets after their label, bare URLs once", () => {
    expect(renderPlainText("[docs](https://d.test/?a=1&b=2) and <https://x.test> and <me@x.test>")).toBe(
      "docs (https://d.test/?a=1&b=2) and https://x.test and me@x.test",
    );
    expect(renderPlainText("![chart](https://x.test/c.png)")).toBe("chart (https://x.test/c.png)");
  });

  it("keeps code blocks as they are, quotes with `> ` and lists as bullets", () => {
    expect(renderPlainText("```sh\nls -la **x**\n```\n\n> a\n>\n> b\n\n1. one\n2. two\n   - sub")).toBe(
      "ls -la **x**\n\n> a\n>\n> b\n\n1. one\n2. two\n   ◦ sub",
    );
  });

  it("lays tables out as aligned columns and leaves raw HTML visible", () => {
    expect(renderPlainText("| a | long header |\n|---|---|\n| **x** | y |\n\n<div>raw</div>")).toBe(
      "a | long header\n--+------------\nx | y\n\n<div>raw</div>",
    );
  });
});
