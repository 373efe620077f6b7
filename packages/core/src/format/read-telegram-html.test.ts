import { describe, expect, it } from "vitest";
import { readTelegramHtml, telegramHtmlToText } from "./read-telegram-html.js";

describe("readTelegramHtml", () => {
  it("reads valid Telegram HTML to the text Telegram shows", () => {
    expect(
      readTelegramHtml(
        '<b>a &amp; <i>b</i></b> <a href="https://x.test/?a=1&amp;b=2">l</a> &lt;3 &#128512; AT&T',
      ),
    ).toEqual({ ok: true, text: "a & b l <3 😀 AT&T" });
    expect(
      readTelegramHtml('<pre><code class="language-ts">x</code></pre><span class="tg-spoiler">s</span>'),
    ).toEqual({
      ok: true,
      text: "xs",
    });
  });

  it("refuses what Telegram refuses, with its wording", () => {
    expect(readTelegramHtml("<b>open")).toEqual({
      ok: false,
      error: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`,
    });
    expect(readTelegramHtml("é<b>x</i>")).toEqual({
      ok: false,
      error: `Bad Request: can't parse entities: Unmatched end tag at byte offset 6, expected "</b>", found "</i>"`,
    });
    expect(readTelegramHtml("<div>x</div>")).toMatchObject({
      ok: false,
      error: expect.stringContaining('"div"'),
    });
    expect(readTelegramHtml("<span>x</span>")).toMatchObject({ ok: false });
    expect(readTelegramHtml("1 < 2")).toMatchObject({ ok: false });
    expect(readTelegramHtml("x</b>")).toMatchObject({ ok: false });
  });

  it("turns even broken HTML into its text for the plain fallback", () => {
    expect(telegramHtmlToText("<b>x &lt; y</b>")).toBe("x < y");
    expect(telegramHtmlToText("<b>x &amp; <i>y</b>")).toBe("x & y");
  });
});
