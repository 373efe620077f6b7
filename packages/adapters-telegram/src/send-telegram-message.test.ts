import { describe, expect, it } from "vitest";
import { telegramCapabilities } from "./telegram-adapter.js";
import { useFakeTelegramAdapter } from "./test/use-fake-telegram-adapter.js";

const bed = useFakeTelegramAdapter();
const adapter = () => bed.adapter();

async function sendError(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return error as {
      name: string;
      message: string;
      retryAfterMs?: number;
      permanent: boolean;
      status?: number;
    };
  }
  throw new Error("send succeeded");
}

describe("telegram send", () => {
  it("declares 4096-character messages, topics, no idempotent sends, media both ways and buttons", () => {
    expect(telegramCapabilities).toEqual({
      maxTextLength: 4096,
      threads: true,
      markdown: "telegram-html",
      idempotentSends: false,
      format: "telegram-html",
      attachmentsIn: ["image", "audio", "voice", "video", "file", "sticker", "location", "contact"],
      attachmentsOut: true,
      actions: true,
    });
  });

  it("replies in the right chat and topic with reply_parameters, returning the message id", async () => {
    const telegram = await adapter();
    const result = await telegram.send(
      { chatId: "-1001234567890", chatType: "group", threadId: "88", replyToMessageId: "1001" },
      { text: "done" },
      { idempotencyKey: "k1" },
    );
    const [sent] = bed.fake.sent();
    expect(sent).toMatchObject({
      chat_id: "-1001234567890",
      text: "done",
      message_thread_id: 88,
      reply_parameters: { message_id: 1001, allow_sending_without_reply: true },
    });
    expect(result).toEqual({ messageId: String(sent?.message_id) });
    await telegram.send({ chatId: "42" }, { text: "plain" }, { idempotencyKey: "k2" });
    expect(bed.fake.sent()[1]).toEqual({
      message_id: expect.any(Number),
      chat_id: "42",
      text: "plain",
      parse_mode: "HTML",
      edits: 0,
    });
  });

  it("splits a text longer than 4096 characters, replying with the first part only", async () => {
    const telegram = await adapter();
    const text = `${"a".repeat(4000)}\n${"b".repeat(3000)}`;
    await telegram.send({ chatId: "42", replyToMessageId: "7" }, { text }, { idempotencyKey: "k" });
    const sent = bed.fake.sent();
    expect(sent.map((message) => message.text.length)).toEqual([4000, 3000]);
    expect(sent[0]?.reply_parameters?.message_id).toBe(7);
    expect(sent[1]?.reply_parameters).toBeUndefined();
  });

  it("turns 429 into a retryable ChannelSendError with retryAfterMs", async () => {
    const telegram = await adapter();
    bed.fake.failNext("sendMessage", { status: 429, retryAfter: 3 });
    const error = await sendError(telegram.send({ chatId: "42" }, { text: "x" }, { idempotencyKey: "k" }));
    expect(error).toMatchObject({
      name: "ChannelSendError",
      status: 429,
      retryAfterMs: 3000,
      permanent: false,
    });
    expect(bed.fake.sent()).toHaveLength(0);
  });

  it("marks 4xx that retrying cannot fix as permanent, 5xx and network failures as retryable", async () => {
    const telegram = await adapter();
    const blocked = await sendError(telegram.send({ chatId: "403" }, { text: "x" }, { idempotencyKey: "k" }));
    expect(blocked).toMatchObject({ permanent: true, status: 403 });
    expect(blocked.message).toContain("bot was blocked by the user");
    bed.fake.failNext("sendMessage", { status: 500, description: "Internal Server Error" });
    expect(
      await sendError(telegram.send({ chatId: "42" }, { text: "x" }, { idempotencyKey: "k" })),
    ).toMatchObject({
      permanent: false,
      status: 500,
    });
    bed.fake.dropNext("sendMessage");
    const dropped = await sendError(telegram.send({ chatId: "42" }, { text: "x" }, { idempotencyKey: "k" }));
    expect(dropped).toMatchObject({ permanent: false });
    expect(dropped.status).toBeUndefined();
    for (const error of [blocked, dropped]) {
      expect(error.message).not.toContain(bed.fake.token);
      expect(JSON.stringify(error)).not.toContain(bed.fake.token);
    }
  });
});
