import { describe, expect, it } from "vitest";
import { renderTerminalText } from "./terminal-text.js";

const esc = "\u001b";
const stripAnsi = (text: string) => text.replace(new RegExp(`${esc}\\[[0-9;]*m`, "g"), "");

describe("renderTerminalText", () => {
  it("styles headings, bold, italics and inline code with ANSI when colour is on", () => {
    const out = renderTerminalText("# Title\n\n## Part\n\n**bold** _it_ `npm test`", { color: true });
    expect(out).toBe(
      `${esc}[1m${esc}[4mTitle${esc}[24m${esc}[22m\n\n${esc}[1mPart${esc}[22m\n\n` +
        `${esc}[1mbold${esc}[22m ${esc}[3mit${esc}[23m ${esc}[36mnpm test${esc}[39m`,
    );
  });

  it("keeps the same layout without any escape code when colour is off", () => {
    const out = renderTerminalText("# Title\n\n## Part\n\n**bold** _it_ `npm test`\n\n### Small", {
      color: false,
    });
    expect(out).toBe("Title\n=====\n\nPart\n----\n\nbold it `npm test`\n\nSmall");
    expect(out).not.toContain(esc);
  });

  it("shows code blocks in a gutter (colour) or indented (plain), the language named, the code untouched", () => {
    const markdown = "```ts\nconst a = **1**;\n  indented();\n```";
    expect(stripAnsi(renderTerminalText(markdown, { color: true }))).toBe(
      "╭ ts\n│ const a = **1**;\n│   indented();",
    );
    expect(renderTerminalText(markdown, { color: false })).toBe("    const a = **1**;\n      indented();");
  });

  it("lists as bullets and numbers, nested items indented under their marker", () => {
    expect(renderTerminalText("- one\n- two\n  - sub\n\n3. three\n4. four", { color: false })).toBe(
      "• one\n• two\n  ◦ sub\n\n3. three\n4. four",
    );
  });

  it("lays tables out in aligned columns with a bold header", () => {
    const markdown = "| file | lines |\n|---|---:|\n| a.ts | 12 |\n| long-name.ts | 3 |";
    const plain = renderTerminalText(markdown, { color: false });
    expect(plain).toBe(
      "file         | lines\n-------------+------\na.ts         |    12\nlong-name.ts |     3",
    );
    const colored = renderTerminalText(markdown, { color: true });
    expect(colored.startsWith(`${esc}[1mfile`)).toBe(true);
    expect(stripAnsi(colored)).toBe(plain);
  });

  it("shows a link's URL after its label, a bare URL once", () => {
    expect(renderTerminalText("[docs](https://d.test/x) and <https://x.test>", { color: false })).toBe(
      "docs (https://d.test/x) and https://x.test",
    );
    expect(renderTerminalText("[docs](https://d.test/x)", { color: true })).toBe(
      `${esc}[4mdocs${esc}[24m ${esc}[2m(https://d.test/x)${esc}[22m`,
    );
  });

  it("quotes with a gutter and drops control characters that would drive the terminal", () => {
    expect(stripAnsi(renderTerminalText("> a\n>\n> b", { color: true }))).toBe("│ a\n│\n│ b");
    const hostile = `clear${esc}[2J${esc}]0;title\u0007 done\n\n\`\`\`\nx${esc}[31m\n\`\`\``;
    const out = renderTerminalText(hostile, { color: false });
    expect(out).toBe("clear[2J]0;title done\n\n    x[31m");
    expect(out).not.toContain(esc);
  });
});
