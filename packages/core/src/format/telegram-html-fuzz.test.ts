import { seededRandom } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { chunkHtml } from "./chunk-html.js";
import { readTelegramHtml } from "./read-telegram-html.js";
import { renderTelegramHtml } from "./telegram-html.js";

// Pieces models emit, including crossing and unclosed markers, raw tags and entities.
const pieces = [
  "**",
  "*",
  "_",
  "__",
  "~~",
  "`",
  "```",
  "```py\n",
  "\n",
  "\n\n",
  "> ",
  "- ",
  "1. ",
  "# ",
  "| a | b |\n|---|---|\n| 1 | 2 |\n",
  "[",
  "](",
  ")",
  "https://x.test/?a=1&b=2",
  "<",
  ">",
  "&",
  "&amp;",
  "&#60;",
  "<b>",
  "</i>",
  "<u>",
  "</u>",
  "<tg-spoiler>",
  "</tg-spoiler>",
  "😀",
  "中文",
  "word",
  " ",
  "\\*",
  "<script>",
  "![i](https://x.test/i.png)",
  "    code\n",
];

describe("Telegram HTML under arbitrary Markdown", () => {
  it("is always balanced, known-tag HTML, and so is every chunk of it at any limit", () => {
    const random = seededRandom(20261125);
    for (let round = 0; round < 400; round++) {
      let markdown = "";
      const length = 1 + Math.floor(random() * 60);
      for (let index = 0; index < length; index++) markdown += pieces[Math.floor(random() * pieces.length)];
      const html = renderTelegramHtml(markdown);
      expect(readTelegramHtml(html), markdown).toMatchObject({ ok: true });
      const max = 80 + Math.floor(random() * 200);
      for (const chunk of chunkHtml(html, max)) {
        expect(chunk.length, markdown).toBeLessThanOrEqual(max);
        expect(readTelegramHtml(chunk), `${markdown}\n---\n${chunk}`).toMatchObject({ ok: true });
      }
    }
  });
});
