import { describe, expect, it } from "vitest";
import { escapeHtml, renderTelegramHtml } from "./telegram-html.js";

describe("renderTelegramHtml", () => {
  it("renders headings as bold lines and paragraphs separated by a blank line", () => {
    expect(renderTelegramHtml("# Title\n\nSome text.\n\n### Sub *part*")).toBe(
      "<b>Title</b>\n\nSome text.\n\n<b>Sub <i>part</i></b>",
    );
  });

  it("renders bold, italic, strikethrough and nested styles, balanced", () => {
    expect(renderTelegramHtml("**bold _and italic_** ~~gone~~ *i **b** i*")).toBe(
      "<b>bold <i>and italic</i></b> <s>gone</s> <i>i <b>b</b> i</i>",
    );
  });

  it("escapes every text and the & in link URLs", () => {
    expect(renderTelegramHtml("a < b && c > d <email@example.com> [q](https://x.test/?a=1&b=<2>)")).toBe(
      'a &lt; b &amp;&amp; c &gt; d email@example.com <a href="https://x.test/?a=1&amp;b=%3C2%3E">q</a>',
    );
    expect(renderTelegramHtml('[x](https://x.test/?q="1"&r=2)')).toBe(
      '<a href="https://x.test/?q=%221%22&amp;r=2">x</a>',
    );
    expect(escapeHtml(`<a href="x">&</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
  });

  it("keeps raw HTML from the model visible as text, except underline and spoiler pairs", () => {
    expect(renderTelegramHtml("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(renderTelegramHtml("an <u>underlined</u> and <tg-spoiler>secret</tg-spoiler> word <b>x")).toBe(
      "an <u>underlined</u> and <tg-spoiler>secret</tg-spoiler> word &lt;b&gt;x",
    );
  });

  it("renders links, reference links and images; unsafe and relative ones are text", () => {
    expect(renderTelegramHtml("[docs][d] and ![logo](https://x.test/l.png)\n\n[d]: https://docs.test")).toBe(
      '<a href="https://docs.test">docs</a> and <a href="https://x.test/l.png">logo</a>',
    );
    expect(renderTelegramHtml("[run](javascript:alert(1)) [file](./a.md)")).toBe(
      "[run](javascript:alert(1)) file (./a.md)",
    );
    expect(renderTelegramHtml("[](https://x.test/a&b)")).toBe(
      '<a href="https://x.test/a&amp;b">https://x.test/a&amp;b</a>',
    );
    expect(renderTelegramHtml("[`code` in **link**](https://x.test)")).toBe(
      '<a href="https://x.test">code in <b>link</b></a>',
    );
  });

  it("renders code blocks with their language and inline code, escaped", () => {
    expect(renderTelegramHtml("```ts\nconst a = 1 < 2 && b;\n```\n\nrun `x<y`")).toBe(
      '<pre><code class="language-ts">const a = 1 &lt; 2 &amp;&amp; b;</code></pre>\n\nrun <code>x&lt;y</code>',
    );
    expect(renderTelegramHtml("```\nplain\n```")).toBe("<pre>plain</pre>");
    expect(renderTelegramHtml('```"><script>\nx\n```')).toBe("<pre>x</pre>");
  });

  it("renders blockquotes, flattening nested ones (Telegram does not nest them)", () => {
    expect(renderTelegramHtml("> quoted **text**\n>\n> > inner")).toBe(
      "<blockquote>quoted <b>text</b>\n\ninner</blockquote>",
    );
  });

  it("renders lists as bullet lines, numbered lists from their start, nested ones indented", () => {
    expect(renderTelegramHtml("- one\n- two\n  - deep\n- three")).toBe("• one\n• two\n  ◦ deep\n• three");
    expect(renderTelegramHtml("3. c\n4. d")).toBe("3. c\n4. d");
  });

  it("renders tables as an aligned monospace pre block", () => {
    expect(renderTelegramHtml("| Name | Qty |\n|:--|--:|\n| apple & pear | 3 |\n| 苹果 | 12 |")).toBe(
      "<pre>Name         | Qty\n-------------+----\napple &amp; pear |   3\n苹果         |  12</pre>",
    );
  });
});
