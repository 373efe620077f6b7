import { describe, expect, it } from "vitest";
import { mapWecomMessage, type WecomMedia } from "./map-wecom-message.js";

const fetched: WecomMedia[] = [];
const options = {
  botName: "Downcity",
  fetchMedia: async (media: WecomMedia) => {
    fetched.push(media);
    return new Uint8Array([1, 2, 3]);
  },
};
const base = { msgid: "m1", aibotid: "aib1", from: { userid: "ada" } };

describe("mapWecomMessage", () => {
  it("maps a direct text message to the sender's chat", () => {
    expect(
      mapWecomMessage(
        { ...base, chattype: "single", msgtype: "text", text: { content: " hello " } },
        options,
      ),
    ).toMatchObject({
      eventId: "m1",
      messageId: "m1",
      chatId: "ada",
      chatType: "direct",
      userId: "ada",
      text: "hello",
      mentionedBot: false,
    });
  });

  it("maps a group message to its chatid with the bot's mention stripped", () => {
    const event = mapWecomMessage(
      { ...base, chattype: "group", chatid: "wr1", msgtype: "text", text: { content: "@Downcity status?" } },
      options,
    );
    expect(event).toMatchObject({ chatId: "wr1", chatType: "group", text: "status?", mentionedBot: true });
    // Without a configured name, the leading @word is taken as the bot's mention.
    const unnamed = mapWecomMessage(
      { ...base, chattype: "group", chatid: "wr1", msgtype: "text", text: { content: "@机器人 你好 @Bob" } },
      { fetchMedia: options.fetchMedia },
    );
    expect(unnamed?.text).toBe("你好 @Bob");
  });

  it("gives WeCom's voice transcript as labelled text", () => {
    const event = mapWecomMessage(
      { ...base, chattype: "single", msgtype: "voice", voice: { content: "明天开会吗" } },
      options,
    );
    expect(event?.text).toBe("[WeCom's automatic transcript of a voice message: 明天开会吗]");
    expect(event?.attachments).toBeUndefined();
  });

  it("maps a mixed message to its text and images, each fetched with its own key", async () => {
    const event = mapWecomMessage(
      {
        ...base,
        chattype: "single",
        msgtype: "mixed",
        mixed: {
          msg_item: [
            { msgtype: "text", text: { content: "what is this?" } },
            { msgtype: "image", image: { url: "http://127.0.0.1/a", aeskey: "k1" } },
            { msgtype: "image", image: { url: "http://127.0.0.1/b", aeskey: "k2" } },
          ],
        },
      },
      options,
    );
    expect(event?.text).toBe("what is this?");
    expect(event?.attachments?.map((attachment) => attachment.kind)).toEqual(["image", "image"]);
    await event?.attachments?.[1]?.fetch?.({ maxBytes: 10, signal: new AbortController().signal });
    expect(fetched.at(-1)).toEqual({ kind: "image", url: "http://127.0.0.1/b", aeskey: "k2" });
  });

  it("maps files and videos, and keeps the quoted text", () => {
    const file = mapWecomMessage(
      {
        ...base,
        chattype: "single",
        msgtype: "file",
        file: { url: "http://127.0.0.1/f", aeskey: "k" },
        quote: { msgtype: "text", text: { content: "the earlier question" } },
      },
      options,
    );
    expect(file).toMatchObject({ text: "", quotedText: "the earlier question" });
    expect(file?.attachments?.[0]?.kind).toBe("file");
    const video = mapWecomMessage(
      { ...base, chattype: "single", msgtype: "video", video: { url: "http://127.0.0.1/v" } },
      options,
    );
    expect(video?.attachments?.[0]?.kind).toBe("video");
  });

  it("ignores unknown message types and malformed bodies", () => {
    expect(mapWecomMessage({ ...base, chattype: "single", msgtype: "location" }, options)).toBeUndefined();
    expect(mapWecomMessage({ msgtype: "text" }, options)).toBeUndefined();
    expect(mapWecomMessage(undefined, options)).toBeUndefined();
  });
});
