import type { Update } from "grammy/types";
import { describe, expect, it } from "vitest";
import { mapTelegramUpdate } from "./map-telegram-update.js";

const bot = { id: 777, username: "dc_bot" };
const ada = { id: 42, is_bot: false, first_name: "Ada", last_name: "Lovelace", username: "ada" };
const group = { id: -1001234, type: "supergroup", title: "Team" };

function update(message: Record<string, unknown>, updateId = 10): Update {
  return {
    update_id: updateId,
    message: {
      message_id: 5,
      date: 1,
      from: ada,
      chat: { id: 42, type: "private", first_name: "Ada" },
      ...message,
    },
  } as unknown as Update;
}

function event(input: Update) {
  const mapped = mapTelegramUpdate(input, bot);
  if (!("event" in mapped)) throw new Error(`ignored: ${mapped.ignored}`);
  return mapped.event;
}

describe("mapTelegramUpdate", () => {
  it("maps a private chat to a direct event keyed by update_id", () => {
    expect(event(update({ text: "hi there" }, 99))).toMatchObject({
      eventId: "99",
      chatId: "42",
      chatType: "direct",
      userId: "42",
      username: "ada",
      displayName: "Ada Lovelace",
      text: "hi there",
      messageId: "5",
      mentionedBot: false,
      fromBot: false,
    });
  });

  it("maps groups and supergroups to group and strips an @botname mention", () => {
    const mapped = event(
      update({
        chat: group,
        text: "@dc_bot what time is it?",
        entities: [{ type: "mention", offset: 0, length: 7 }],
      }),
    );
    expect(mapped).toMatchObject({
      chatId: "-1001234",
      chatType: "group",
      chatTitle: "Team",
      text: "what time is it?",
      mentionedBot: true,
    });
    const plainGroup = event(update({ chat: { id: -5, type: "group", title: "Old" }, text: "hello all" }));
    expect(plainGroup).toMatchObject({
      chatType: "group",
      chatTitle: "Old",
      mentionedBot: false,
      text: "hello all",
    });
  });

  it("reads entity offsets as UTF-16 units (emoji before the mention)", () => {
    const text = "👋🏽 hey @dc_bot, status?";
    const offset = text.indexOf("@dc_bot");
    // Telegram counts the waving hand and its skin tone as 2 UTF-16 units each (code points would say 7).
    expect(offset).toBe(9);
    const mapped = event(update({ chat: group, text, entities: [{ type: "mention", offset, length: 7 }] }));
    expect(mapped.text).toBe("👋🏽 hey, status?");
    expect(mapped.mentionedBot).toBe(true);
  });

  it("does not count a mention of another bot, nor a bare @botname without an entity", () => {
    const other = event(
      update({ chat: group, text: "@other_bot hi", entities: [{ type: "mention", offset: 0, length: 10 }] }),
    );
    expect(other).toMatchObject({ mentionedBot: false, text: "@other_bot hi" });
    expect(event(update({ chat: group, text: "@dc_bot hi" })).mentionedBot).toBe(false);
  });

  it("counts a text_mention of the bot and a reply to one of the bot's messages", () => {
    const textMention = event(
      update({
        chat: group,
        text: "Downcity please help",
        entities: [
          {
            type: "text_mention",
            offset: 0,
            length: 8,
            user: { id: 777, is_bot: true, first_name: "Downcity" },
          },
        ],
      }),
    );
    expect(textMention).toMatchObject({ mentionedBot: true, text: "please help" });
    const reply = event(
      update({
        chat: group,
        text: "and then?",
        reply_to_message: {
          message_id: 3,
          date: 1,
          chat: group,
          from: { id: 777, is_bot: true, first_name: "Downcity" },
        },
      }),
    );
    expect(reply).toMatchObject({ mentionedBot: true, replyToMessageId: "3", text: "and then?" });
  });

  it("strips /command@botname to the command", () => {
    const mapped = event(
      update({
        chat: group,
        text: "/status@dc_bot now",
        entities: [{ type: "bot_command", offset: 0, length: 14 }],
      }),
    );
    expect(mapped).toMatchObject({ text: "/status now", mentionedBot: true });
  });

  it("takes a forum topic's message_thread_id as the thread, not the topic's creation message as a reply", () => {
    const topic = {
      message_id: 88,
      date: 1,
      chat: group,
      from: ada,
      forum_topic_created: { name: "Ops", icon_color: 1 },
    };
    const mapped = event(
      update({
        chat: { ...group, is_forum: true },
        message_thread_id: 88,
        is_topic_message: true,
        reply_to_message: { ...topic, from: { id: 777, is_bot: true, first_name: "Downcity" } },
        text: "@dc_bot deploy",
        entities: [{ type: "mention", offset: 0, length: 7 }],
      }),
    );
    expect(mapped.threadId).toBe("88");
    expect(mapped.replyToMessageId).toBeUndefined();
    expect(mapped.text).toBe("deploy");
    // Without the mention, a topic created by the bot does not make every message in it a mention.
    const quiet = event(
      update({
        chat: { ...group, is_forum: true },
        message_thread_id: 88,
        is_topic_message: true,
        reply_to_message: { ...topic, from: { id: 777, is_bot: true, first_name: "Downcity" } },
        text: "just chatting",
      }),
    );
    expect(quiet.mentionedBot).toBe(false);
  });

  it("takes a caption as the text, with caption entities", () => {
    const mapped = event(
      update({
        chat: group,
        photo: [{ file_id: "x", file_unique_id: "y", width: 1, height: 1 }],
        caption: "@dc_bot what is this",
        caption_entities: [{ type: "mention", offset: 0, length: 7 }],
      }),
    );
    expect(mapped).toMatchObject({ text: "what is this", mentionedBot: true });
  });

  it("ignores messages with neither text nor media and non-message updates, saying why", () => {
    expect(mapTelegramUpdate(update({ pinned_message: { message_id: 1 } }), bot)).toEqual({
      ignored: "message without text or media (pinned_message)",
    });
    expect(mapTelegramUpdate(update({ dice: { emoji: "🎲", value: 3 } }), bot)).toEqual({
      ignored: "message without text or media (dice)",
    });
    const edited = { update_id: 11, edited_message: { message_id: 5, text: "x" } } as unknown as Update;
    expect(mapTelegramUpdate(edited, bot)).toEqual({
      ignored: "update kind edited_message is not a new message",
    });
  });

  it("marks messages from bots", () => {
    expect(event(update({ from: { id: 9, is_bot: true, first_name: "Other" }, text: "beep" })).fromBot).toBe(
      true,
    );
  });
});
