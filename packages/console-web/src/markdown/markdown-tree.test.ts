import { describe, expect, it } from "vitest";
import { type MarkdownNode, markdownTree, safeHref } from "./markdown-tree.js";

const el = (tag: string, children: MarkdownNode[], attrs: Record<string, string> = {}) => ({
  tag,
  attrs,
  children,
});
const newTab = { target: "_blank", rel: "noopener noreferrer nofollow" };

describe("markdownTree", () => {
  it("turns headings, emphasis, inline code and tight lists into elements", () => {
    expect(markdownTree("## Plan\n\n**bold** _it_ ~~old~~ `npm test`\n\n- one\n- two")).toEqual([
      el("h2", ["Plan"]),
      el("p", [
        el("strong", ["bold"]),
        " ",
        el("em", ["it"]),
        " ",
        el("s", ["old"]),
        " ",
        el("code", ["npm test"]),
      ]),
      el("ul", [el("li", ["one"]), el("li", ["two"])]),
    ]);
  });

  it("keeps raw HTML as text, never as markup", () => {
    expect(markdownTree('<img src=x onerror="alert(1)">\n\nhi <b>there</b> <script>x</script>')).toEqual([
      el("p", ['<img src=x onerror="alert(1)">']),
      el("p", ["hi <b>there</b> <script>x</script>"]),
    ]);
  });

  it("links only http(s) and mailto, in a new tab without referrer; other schemes stay text", () => {
    expect(markdownTree("[docs](https://d.test/a?b=1) [x](javascript:alert(1)) [r](/console/api/x)")).toEqual(
      [
        el("p", [
          el("a", ["docs"], { href: "https://d.test/a?b=1", ...newTab }),
          " [x](javascript:alert(1)) r",
        ]),
      ],
    );
    expect(safeHref("data:text/html,<b>")).toBeUndefined();
    expect(safeHref("mailto:me@x.test")).toBe("mailto:me@x.test");
  });

  it("shows code blocks with their language, tables with alignment classes, images as links", () => {
    expect(markdownTree("```ts\nconst a = 1;\n```")).toEqual([
      el("pre", [el("code", ["const a = 1;"], { class: "language-ts" })]),
    ]);
    const [table] = markdownTree("| a | b |\n|---|--:|\n| 1 | 2 |");
    expect(table).toEqual(
      el("table", [
        el("thead", [el("tr", [el("th", ["a"]), el("th", ["b"], { class: "align-right" })])]),
        el("tbody", [el("tr", [el("td", ["1"]), el("td", ["2"], { class: "align-right" })])]),
      ]),
    );
    expect(markdownTree("![chart](https://x.test/c.png)")).toEqual([
      el("p", [el("a", ["chart"], { href: "https://x.test/c.png", ...newTab })]),
    ]);
  });
});
