import { readTelegramHtml } from "@downcity/core";
import { describe, expect, it } from "vitest";
import { sendTelegramMessage } from "./send-telegram-message.js";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const bed = useFakeTelegramAdapter();
const adapter = () => bed.adapter();

const parseModes = () => bed.fake.calls("sendMessage").map((call) => call.payload.parse_mode);

const codeLines = Array.from(
  { length: 220 },
  (_, index) => `  total += weigh(items[${index}]) * 2; // <step ${index}>`,
);
const longCode = codeLines.join("\n").slice(0, 6000);
const answer = [
  "## Results & next steps",
  "",
  "The **build** passed; see [the log](https://ci.test/run?id=7&view=full).",
  "",
  "| Package | Time |",
  "|:--|--:|",
  "| core | 1.2 s |",
  "| adapters-telegram | 0.8 s |",
  "",
  "```ts",
  longCode,
  "```",
].join("\n");

describe("telegram formatted replies", () => {
  it("sends a Markdown reply as valid HTML chunks under 4096 units, the code fence reopened", async () => {
    const telegram = await adapter();
    await telegram.send({ chatId: "42", replyToMessageId: "9" }, { text: answer }, { idempotencyKey: "k" });
    const sent = bed.fake.sent();
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(parseModes().every((mode) => mode === "HTML")).toBe(true);
    for (const message of sent) {
      expect(message.text.length).toBeLessThanOrEqual(4096);
      expect(readTelegramHtml(message.text)).toMatchObject({ ok: true });
    }
    const [first, ...rest] = sent.map((message) => message.text);
    expect(first).toContain("<b>Results &amp; next steps</b>");
    expect(first).toContain("<b>build</b>");
    expect(first).toContain('<a href="https://ci.test/run?id=7&amp;view=full">the log</a>');
    expect(first).toContain("<pre>Package           |  Time\n");
    expect(first).toContain('<pre><code class="language-ts">');
    expect(first?.endsWith("</code></pre>")).toBe(true);
    for (const chunk of rest) expect(chunk.startsWith('<pre><code class="language-ts">')).toBe(true);
    // Every line of the code arrives, escaped, once.
    const shown = sent.map((message) => (readTelegramHtml(message.text) as { text: string }).text).join("\n");
    for (const line of longCode.split("\n")) expect(shown.split(line).length - 1).toBe(1);
    expect(sent[0]?.reply_parameters?.message_id).toBe(9);
    expect(sent.slice(1).every((message) => message.reply_parameters === undefined)).toBe(true);
  });

  it("resends a chunk Telegram cannot parse once, as plain text: never lost, never doubled", async () => {
    const telegram = await adapter();
    bed.fake.failNextHtmlParse();
    await telegram.send(
      { chatId: "42" },
      { text: "**Done** & <checked>: [site](https://x.test/?a=1&b=2)" },
      {
        idempotencyKey: "k",
      },
    );
    expect(parseModes()).toEqual(["HTML", undefined]);
    expect(bed.fake.sent().map((message) => message.text)).toEqual(["Done & <checked>: site"]);
  });

  it("falls back only for the chunk that failed, keeping the others as HTML", async () => {
    const telegram = await adapter();
    const parts = Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${"text ".repeat(700)}`);
    bed.fake.failNextHtmlParse(1);
    await telegram.send({ chatId: "42" }, { text: parts.join("\n\n") }, { idempotencyKey: "k" });
    expect(parseModes()).toEqual(["HTML", "HTML", undefined, "HTML"]);
    const texts = bed.fake.sent().map((message) => message.text);
    expect(texts).toHaveLength(3);
    expect(texts[0]?.startsWith("<b>Part 0</b> text")).toBe(true);
    expect(texts[1]?.startsWith("Part 1 text")).toBe(true);
    expect(texts[2]?.startsWith("<b>Part 2</b> text")).toBe(true);
  });

  it("is refused by the fake, as by Telegram, when the HTML is broken", async () => {
    await adapter();
    const api = (await import("grammy")).Api;
    const client = new api(bed.fake.token, { apiRoot: bed.fake.url });
    for (const html of ["<b>open", "<b>x</i>", "<p>para</p>", "a < b"]) {
      await expect(
        sendTelegramMessage(client, bed.fake.token, { chatId: "42" }, { text: html }, { parseMode: "HTML" }),
      ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("can't parse entities") });
    }
    expect(bed.fake.sent()).toHaveLength(0);
  });
});
