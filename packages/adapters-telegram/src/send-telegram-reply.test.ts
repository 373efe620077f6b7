import { createHash } from "node:crypto";
import type { ChannelMessageFile } from "@downcity/core";
import { describe, expect, it } from "vitest";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const bed = useFakeTelegramAdapter();

function file(name: string, mediaType: string, size = 2048): ChannelMessageFile {
  const data = new Uint8Array(size).map((_, index) => (index * 7) % 256);
  return { name, mediaType, size, data, sha256: createHash("sha256").update(data).digest("hex") };
}

const methods = () =>
  bed.fake.calls().filter((call) => call.method.startsWith("send") && call.method !== "sendChatAction");

describe("telegram files and buttons out", () => {
  it("uploads a photo, a voice note and a document natively, bytes intact, the text as the first caption", async () => {
    const telegram = await bed.adapter();
    const photo = file("chart.png", "image/png");
    const voice = file("note.ogg", "audio/ogg");
    const report = file("report.pdf", "application/pdf");
    const result = await telegram.send(
      { chatId: "42", replyToMessageId: "7" },
      { text: "Here is **the chart**", attachments: [photo, voice, report] },
      { idempotencyKey: "files-1" },
    );
    expect(methods().map((call) => call.method)).toEqual(["sendPhoto", "sendVoice", "sendDocument"]);
    const sent = bed.fake.sent();
    expect(sent.map((message) => [message.file?.method, message.file?.filename])).toEqual([
      ["sendPhoto", "chart.png"],
      ["sendVoice", "note.ogg"],
      ["sendDocument", "report.pdf"],
    ]);
    for (const [index, original] of [photo, voice, report].entries())
      expect(sent[index]?.file?.data.equals(Buffer.from(original.data))).toBe(true);
    expect(sent[0]).toMatchObject({ text: "Here is <b>the chart</b>", parse_mode: "HTML" });
    expect(sent[0]?.reply_parameters?.message_id).toBe(7);
    expect(sent.slice(1).every((message) => message.text === "" && !message.reply_parameters)).toBe(true);
    expect(result).toEqual({ messageId: String(sent[2]?.message_id) });
  });

  it("sends text over the 1,024-character caption limit as a message before the file", async () => {
    const telegram = await bed.adapter();
    const text = `Summary: ${"word ".repeat(260)}`;
    await telegram.send(
      { chatId: "42" },
      { text, attachments: [file("data.csv", "text/csv")] },
      { idempotencyKey: "k" },
    );
    expect(methods().map((call) => call.method)).toEqual(["sendMessage", "sendDocument"]);
    expect(bed.fake.sent()[1]?.text).toBe("");
  });

  it("throws when an upload fails, and the retry of the same key sends only what is missing", async () => {
    const telegram = await bed.adapter();
    const message = { text: "x".repeat(1500), attachments: [file("a.png", "image/png")] };
    bed.fake.failNext("sendPhoto", { status: 500, description: "Internal Server Error" });
    await expect(
      telegram.send({ chatId: "42" }, message, { idempotencyKey: "retry-1" }),
    ).rejects.toMatchObject({
      name: "ChannelSendError",
      permanent: false,
    });
    expect(bed.fake.sent()).toHaveLength(1);
    await telegram.send({ chatId: "42" }, message, { idempotencyKey: "retry-1" });
    expect(bed.fake.sent().map((sent) => sent.file?.method ?? "text")).toEqual(["text", "sendPhoto"]);
    // A new key is a new message: everything goes again.
    await telegram.send({ chatId: "42" }, message, { idempotencyKey: "retry-2" });
    expect(bed.fake.sent()).toHaveLength(4);
  });

  it("sends a photo Telegram cannot process as a document, and refuses files over 50 MB", async () => {
    const telegram = await bed.adapter();
    bed.fake.failNext("sendPhoto", { status: 400, description: "Bad Request: IMAGE_PROCESS_FAILED" });
    await telegram.send(
      { chatId: "42" },
      { text: "", attachments: [file("odd.jpg", "image/jpeg")] },
      {
        idempotencyKey: "k",
      },
    );
    expect(methods().map((call) => call.method)).toEqual(["sendPhoto", "sendDocument"]);
    const huge = { ...file("big.bin", "application/octet-stream", 8), size: 51 * 1024 * 1024 };
    await expect(
      telegram.send({ chatId: "42" }, { text: "", attachments: [huge] }, { idempotencyKey: "k2" }),
    ).rejects.toMatchObject({ permanent: true, message: expect.stringContaining("at most 50 MB") });
  });

  it("resends a caption Telegram cannot parse as plain text once", async () => {
    const telegram = await bed.adapter();
    bed.fake.failNextHtmlParse();
    await telegram.send(
      { chatId: "42" },
      { text: "**Done** & checked", attachments: [file("a.png", "image/png")] },
      { idempotencyKey: "k" },
    );
    expect(bed.fake.calls("sendPhoto").map((call) => call.payload.parse_mode)).toEqual(["HTML", undefined]);
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["Done & checked"]);
  });

  it("puts buttons under the last part as an inline keyboard whose callback_data is the action id", async () => {
    const telegram = await bed.adapter();
    const actions = [
      { id: "ap:K7Q2:once", label: "Allow once" },
      { id: "ap:K7Q2:always", label: "Always allow `git push *`" },
      { id: "ap:K7Q2:deny", label: "Deny" },
    ];
    await telegram.send(
      { chatId: "42" },
      { text: `${"a ".repeat(1500)}\n\n${"b ".repeat(1500)}`, actions },
      {
        idempotencyKey: "k",
      },
    );
    const sent = bed.fake.sent();
    expect(sent).toHaveLength(2);
    expect(sent[0]?.reply_markup).toBeUndefined();
    expect(sent[1]?.reply_markup).toEqual({
      inline_keyboard: actions.map((action) => [{ text: action.label, callback_data: action.id }]),
    });
    await expect(
      telegram.send(
        { chatId: "42" },
        { text: "x", actions: [{ id: "é".repeat(33), label: "Too long" }] },
        {
          idempotencyKey: "k2",
        },
      ),
    ).rejects.toMatchObject({ permanent: true, message: expect.stringContaining("64 bytes") });
  });
});
