import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { mapTelegramUpdate } from "./map-telegram-update.js";

const bot = { id: 777, username: "dc_bot" };
const ada = { id: 42, is_bot: false, first_name: "Ada", username: "ada" };

function mapped(message: Record<string, unknown>) {
  const fetches: string[] = [];
  const update = {
    update_id: 10,
    message: { message_id: 5, date: 1, from: ada, chat: { id: 42, type: "private" }, ...message },
  } as unknown as Update;
  const result = mapTelegramUpdate(update, bot, {
    download: (fileId) => {
      fetches.push(fileId);
      return async () => new Uint8Array();
    },
  });
  if (!("event" in result)) throw new Error(`ignored: ${result.ignored}`);
  return { event: result.event, fetches };
}

const file = (id: string, size?: number) => ({
  file_id: id,
  file_unique_id: `u-${id}`,
  ...(size ? { file_size: size } : {}),
});

describe("telegram media in", () => {
  it("keeps the largest size of a photo, with its caption as the text", () => {
    const { event, fetches } = mapped({
      photo: [
        { ...file("small", 900), width: 90, height: 90 },
        { ...file("large", 90_000), width: 1280, height: 960 },
        { ...file("medium", 9000), width: 320, height: 240 },
      ],
      caption: "what is this?",
    });
    expect(event.text).toBe("what is this?");
    expect(event.attachments).toEqual([
      { kind: "image", mediaType: "image/jpeg", size: 90_000, fetch: expect.any(Function) },
    ]);
    expect(fetches).toEqual(["large"]);
  });

  it("maps voice notes, audio, documents, videos, animations and video notes with what Telegram says of them", () => {
    expect(
      mapped({ voice: { ...file("v", 3000), duration: 4, mime_type: "audio/ogg" } }).event,
    ).toMatchObject({
      text: "",
      attachments: [{ kind: "voice", mediaType: "audio/ogg", size: 3000, durationSeconds: 4 }],
    });
    expect(
      mapped({ audio: { ...file("a"), duration: 180, mime_type: "audio/mpeg", file_name: "song.mp3" } }).event
        .attachments,
    ).toEqual([
      {
        kind: "audio",
        mediaType: "audio/mpeg",
        name: "song.mp3",
        durationSeconds: 180,
        fetch: expect.any(Function),
      },
    ]);
    expect(
      mapped({ document: { ...file("d", 12), file_name: "report.pdf", mime_type: "application/pdf" } }).event
        .attachments,
    ).toEqual([
      {
        kind: "file",
        mediaType: "application/pdf",
        name: "report.pdf",
        size: 12,
        fetch: expect.any(Function),
      },
    ]);
    expect(
      mapped({ video: { ...file("m"), width: 1, height: 1, duration: 9 } }).event.attachments,
    ).toMatchObject([{ kind: "video", mediaType: "video/mp4", durationSeconds: 9 }]);
    // An animation also carries `document`: it is one video, not two attachments.
    const gif = {
      ...file("g"),
      width: 1,
      height: 1,
      duration: 2,
      mime_type: "video/mp4",
      file_name: "fun.mp4",
    };
    const animation = mapped({ animation: gif, document: { ...file("g"), file_name: "fun.mp4" } });
    expect(animation.event.attachments).toMatchObject([{ kind: "video", name: "fun.mp4" }]);
    expect(animation.fetches).toEqual(["g"]);
    expect(
      mapped({ video_note: { ...file("n"), length: 240, duration: 5 } }).event.attachments,
    ).toMatchObject([{ kind: "video", durationSeconds: 5 }]);
  });

  it("reads a sticker as its emoji, and keeps the file of one without an emoji", () => {
    const sticker = {
      ...file("s"),
      type: "regular",
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
    };
    const withEmoji = mapped({ sticker: { ...sticker, emoji: "🐈" } });
    expect(withEmoji.event.attachments).toEqual([{ kind: "sticker", emoji: "🐈" }]);
    expect(withEmoji.fetches).toEqual([]);
    expect(mapped({ sticker }).event.attachments).toMatchObject([
      { kind: "sticker", mediaType: "image/webp" },
    ]);
  });

  it("maps locations, venues and contacts to what the model reads, without a file", () => {
    expect(mapped({ location: { latitude: 48.85, longitude: 2.35 } }).event.attachments).toEqual([
      { kind: "location", location: { latitude: 48.85, longitude: 2.35 } },
    ]);
    const venue = { location: { latitude: 1, longitude: 2 }, title: "Cafe", address: "Main St" };
    expect(mapped({ venue, location: venue.location }).event.attachments).toEqual([
      { kind: "location", location: { latitude: 1, longitude: 2, title: "Cafe" } },
    ]);
    expect(
      mapped({ contact: { phone_number: "+33 1 23", first_name: "Grace", last_name: "Hopper" } }).event
        .attachments,
    ).toEqual([{ kind: "contact", contact: { name: "Grace Hopper", phone: "+33 1 23" } }]);
  });

  it("gives the quoted message's text and what it held", () => {
    const { event } = mapped({
      text: "and this one?",
      reply_to_message: {
        message_id: 3,
        date: 1,
        chat: { id: 42, type: "private" },
        from: ada,
        photo: [{ ...file("p"), width: 1, height: 1 }],
        caption: "the first photo",
      },
    });
    expect(event).toMatchObject({ replyToMessageId: "3", quotedText: "[photo] the first photo" });
  });

  it("maps a button press to an action under the bot's message, in its topic", () => {
    const update = {
      update_id: 20,
      callback_query: {
        id: "cb-1",
        from: ada,
        chat_instance: "x",
        data: "approve:K7Q2:once",
        message: {
          message_id: 50,
          date: 1,
          chat: { id: -100123, type: "supergroup", title: "Team", is_forum: true },
          message_thread_id: 9,
          is_topic_message: true,
          text: "Allow `git push`?",
        },
      },
    } as unknown as Update;
    expect(mapTelegramUpdate(update, bot)).toMatchObject({
      event: {
        eventId: "20",
        chatId: "-100123",
        chatType: "group",
        userId: "42",
        username: "ada",
        text: "",
        messageId: "50",
        threadId: "9",
        mentionedBot: true,
        action: { id: "approve:K7Q2:once", callbackId: "cb-1" },
      },
    });
    const inline = {
      update_id: 21,
      callback_query: { id: "cb-2", from: ada, chat_instance: "x", data: "y" },
    };
    expect(mapTelegramUpdate(inline as unknown as Update, bot)).toEqual({
      ignored: "button press on an inline-mode message",
    });
  });
});
