import { describe, expect, it } from "vitest";
import { feishuMessageEventSchema, mapFeishuMessage } from "./map-feishu-message.js";

const bot = "ou_bot";
const event = (message: Record<string, unknown>, sender: Record<string, unknown> = {}) =>
  feishuMessageEventSchema.parse({
    event_id: "ev1",
    sender: { sender_id: { open_id: "ou_user" }, sender_type: "user", ...sender },
    message: { message_id: "om_1", chat_id: "oc_1", chat_type: "group", message_type: "text", ...message },
  });

describe("mapFeishuMessage", () => {
  it("maps a p2p text to a direct event", () => {
    expect(mapFeishuMessage(event({ chat_type: "p2p", content: '{"text":"hello"}' }), bot)).toEqual({
      eventId: "ev1",
      chatId: "oc_1",
      chatType: "direct",
      userId: "ou_user",
      text: "hello",
      messageId: "om_1",
      mentionedBot: false,
      fromBot: false,
    });
  });

  it("strips the bot's mention key, names other mentions, keeps the thread and the parent", () => {
    const mapped = mapFeishuMessage(
      event({
        content: '{"text":"@_user_1 ask @_user_2 please"}',
        thread_id: "omt_1",
        parent_id: "om_0",
        mentions: [
          { key: "@_user_1", id: { open_id: bot }, name: "Downcity" },
          { key: "@_user_2", id: { open_id: "ou_ada" }, name: "Ada" },
        ],
      }),
      bot,
    );
    expect(mapped).toMatchObject({
      chatType: "group",
      text: "ask @Ada please",
      mentionedBot: true,
      threadId: "omt_1",
      replyToMessageId: "om_0",
    });
  });

  it("does not count @_all or another user's mention as a mention of the bot", () => {
    expect(mapFeishuMessage(event({ content: '{"text":"@_all standup"}' }), bot)).toMatchObject({
      text: "@all standup",
      mentionedBot: false,
    });
    const other = mapFeishuMessage(
      event({
        content: '{"text":"@_user_1 hi"}',
        mentions: [{ key: "@_user_1", id: { open_id: "ou_ada" }, name: "Ada" }],
      }),
      bot,
    );
    expect(other).toMatchObject({ text: "@Ada hi", mentionedBot: false });
  });

  it("reads rich-text posts (links keep their URL) and ignores what it cannot read", () => {
    const post = JSON.stringify({
      title: "Plan",
      content: [
        [
          { tag: "at", user_id: "@_user_1" },
          { tag: "text", text: " ship it" },
        ],
        [{ tag: "a", text: "link", href: "https://x" }],
      ],
    });
    expect(
      mapFeishuMessage(
        event({ message_type: "post", content: post, mentions: [{ key: "@_user_1", id: { open_id: bot } }] }),
        bot,
      ),
    ).toMatchObject({ text: "Plan\nship it\n[link](https://x)", mentionedBot: true });
    expect(
      mapFeishuMessage(event({ message_type: "share_chat", content: '{"chat_id":"oc_9"}' }), bot),
    ).toBeUndefined();
    expect(mapFeishuMessage(event({ content: "not json" }), bot)).toBeUndefined();
  });

  it("gives files an attachment whose fetch downloads that key of that message, and none without a fetcher", async () => {
    const asked: unknown[] = [];
    const fetcher = (resource: unknown) => async () => {
      asked.push(resource);
      return new Uint8Array([1, 2, 3]);
    };
    const mapped = mapFeishuMessage(
      event({ message_type: "file", content: '{"file_key":"file_1","file_name":"report.pdf"}' }),
      bot,
      fetcher,
    );
    expect(mapped).toMatchObject({ text: "", attachments: [{ kind: "file", name: "report.pdf" }] });
    const bytes = await mapped?.attachments?.[0]?.fetch?.({
      maxBytes: 10,
      signal: new AbortController().signal,
    });
    expect(bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(asked).toEqual([{ messageId: "om_1", fileKey: "file_1", type: "file" }]);
    expect(
      mapFeishuMessage(event({ message_type: "image", content: '{"image_key":"k"}' }), bot),
    ).toBeUndefined();
  });

  it("marks messages from apps (including this bot) as fromBot", () => {
    expect(
      mapFeishuMessage(event({ content: '{"text":"beep"}' }, { sender_type: "app" }), bot),
    ).toMatchObject({ fromBot: true });
  });
});
