import { describe, expect, it } from "vitest";
import { renderFeishuCard, renderFeishuMarkdown } from "./feishu-card.js";

describe("renderFeishuCard", () => {
  it("wraps the reply in a Card JSON 2.0 card with one markdown element", () => {
    const card = renderFeishuCard("# Hi\n\n**bold**");
    expect(card).toEqual({
      schema: "2.0",
      config: { update_multi: true },
      body: { elements: [{ tag: "markdown", content: "# Hi\n\n**bold**" }] },
    });
    expect(JSON.parse(JSON.stringify(card))).toEqual(card);
  });

  it("keeps headings, styles, links, lists, quotes, code and pipe tables", () => {
    const markdown = [
      "## Plan",
      "*one* ~~two~~ [three](https://t.test/?a=1&b=(2))",
      "- a\n  - b",
      "> quoted",
      "```py\nprint('<x>')\n```",
      "| k | v |\n|:-|-:|\n| 1 | 2 |",
    ];
    // As written, but for the parentheses of the URL and the delimiter row, now spelled out.
    const expected = [...markdown];
    expected[1] = "*one* ~~two~~ [three](https://t.test/?a=1&b=%282%29)";
    expected[5] = "| k | v |\n| :-- | --: |\n| 1 | 2 |";
    expect(renderFeishuMarkdown(markdown.join("\n\n"))).toBe(expected.join("\n\n"));
  });

  it("writes angle brackets as entities so text never becomes an <at> or <font> tag, and escapes literals", () => {
    expect(renderFeishuMarkdown("<at id=all></at> a \\*b\\* snake_case _x_ | `c<d`")).toBe(
      "&#60;at id=all&#62;&#60;/at&#62; a \\*b\\* snake_case *x* \\| `c<d`",
    );
  });

  it("turns images into links, links it cannot open into text, and a fifth table into a code block", () => {
    expect(renderFeishuMarkdown("![pic](https://x.test/p.png) [f](file:///etc/passwd)")).toBe(
      "[pic](https://x.test/p.png) \\[f\\](file:///etc/passwd)",
    );
    const table = "| a |\n|---|\n| 1 |";
    const rendered = renderFeishuMarkdown(Array.from({ length: 5 }, () => table).join("\n\n"));
    expect(rendered.match(/^\| a \|$/gm)).toHaveLength(4);
    expect(rendered.endsWith("```\na\n-\n1\n```")).toBe(true);
  });
});
