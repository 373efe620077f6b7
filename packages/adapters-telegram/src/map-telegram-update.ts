import type { ChannelEvent } from "@downcity/core";
import type { Message, MessageEntity, Update } from "grammy/types";
import { mapTelegramAttachments, type TelegramFileDownload } from "./map-telegram-attachments.js";
import { mapTelegramCallback } from "./map-telegram-callback.js";

/** Who the bot is, as getMe reports it: what mentions are matched against. */
export interface TelegramBotIdentity {
  id: number;
  username: string;
}

/** An update turned into a channel event, or the reason it carries none. */
export type MappedUpdate = { event: ChannelEvent } | { ignored: string };

/**
 * Maps a Bot API update to a channel event: chat kind, topic, mention of this bot (stripped), captions
 * as text, photos, files, voice notes, stickers, locations and contacts as attachments (downloaded with
 * `options.download`), the quoted message's text, and button presses as actions.
 */
export function mapTelegramUpdate(
  update: Update,
  bot: TelegramBotIdentity,
  options: { download?: TelegramFileDownload } = {},
): MappedUpdate {
  if (update.callback_query) {
    const mapped = mapTelegramCallback(update.update_id, update.callback_query);
    return "event" in mapped ? { event: { ...mapped.event, raw: update } } : mapped;
  }
  const message = update.message;
  if (!message) return { ignored: `update kind ${updateKind(update)} is not a new message` };
  const chatType = message.chat.type;
  if (!message.from) return { ignored: "message without a sender" };
  const attachments = mapTelegramAttachments(message, options.download);
  const body = message.text ?? message.caption ?? (attachments.length > 0 ? "" : undefined);
  if (body === undefined) return { ignored: `message without text or media (${messageKind(message)})` };
  const entities = message.entities ?? message.caption_entities ?? [];

  const mentions = entities.filter((entity) => isMentionOfBot(entity, body, bot));
  const replyTo = explicitReply(message);
  const quoted = replyTo ? quotedText(replyTo) : undefined;
  const text = stripRanges(
    body,
    mentions.map((entity) => mentionRange(entity, bot)),
  );
  const threadId =
    message.is_topic_message && message.message_thread_id !== undefined
      ? String(message.message_thread_id)
      : undefined;
  const displayName = [message.from.first_name, message.from.last_name].filter(Boolean).join(" ");

  return {
    event: {
      eventId: String(update.update_id),
      chatId: String(message.chat.id),
      chatType: chatType === "private" ? "direct" : "group",
      userId: String(message.from.id),
      ...(message.from.username ? { username: message.from.username } : {}),
      ...(displayName ? { displayName } : {}),
      // A group's title: `downcity access pending` names refused groups by it.
      ...("title" in message.chat && message.chat.title ? { chatTitle: message.chat.title } : {}),
      text,
      ...(attachments.length > 0 ? { attachments } : {}),
      ...(quoted ? { quotedText: quoted } : {}),
      messageId: String(message.message_id),
      ...(threadId ? { threadId } : {}),
      ...(replyTo ? { replyToMessageId: String(replyTo.message_id) } : {}),
      mentionedBot: mentions.length > 0 || replyTo?.from?.id === bot.id,
      fromBot: message.from.is_bot,
      raw: update,
    },
  };
}

// In a forum topic every message "replies" to the topic's creation message; that is not a reply.
function explicitReply(message: Message): Message | undefined {
  const reply = message.reply_to_message;
  if (!reply) return undefined;
  if (message.is_topic_message && reply.message_id === message.message_thread_id) return undefined;
  return reply;
}

// What the model is told of the message being answered: its text or caption, or what it held.
function quotedText(reply: Message): string | undefined {
  const text = reply.text ?? reply.caption;
  const media = mediaKinds.filter((kind) => reply[kind] !== undefined && kind !== "forum_topic_created");
  const note = media.length > 0 ? `[${media.join(", ")}]` : "";
  const quoted = [note, text].filter(Boolean).join(" ");
  return quoted ? quoted.slice(0, 16 * 1024) : undefined;
}

// Entity offsets and lengths count UTF-16 code units, which is exactly how JavaScript strings index.
function entityText(entity: MessageEntity, text: string): string {
  return text.slice(entity.offset, entity.offset + entity.length);
}

function isMentionOfBot(entity: MessageEntity, text: string, bot: TelegramBotIdentity): boolean {
  const handle = `@${bot.username}`.toLowerCase();
  switch (entity.type) {
    case "mention":
      return entityText(entity, text).toLowerCase() === handle;
    case "text_mention":
      return entity.user.id === bot.id;
    case "bot_command":
      return entityText(entity, text).toLowerCase().endsWith(handle);
    default:
      return false;
  }
}

// For /command@bot only the @bot suffix goes; the command itself is the message.
function mentionRange(entity: MessageEntity, bot: TelegramBotIdentity): [number, number] {
  const end = entity.offset + entity.length;
  if (entity.type === "bot_command") return [end - (bot.username.length + 1), end];
  return [entity.offset, end];
}

function stripRanges(text: string, ranges: Array<[number, number]>): string {
  let result = text;
  for (const [start, end] of [...ranges].sort((a, b) => b[0] - a[0])) {
    const before = result.slice(0, start).replace(/[ \t]+$/, "");
    let after = result.slice(end);
    if (!before.trim()) after = after.replace(/^[ \t]*[,:;]?/, "");
    const joiner = before && after && !/^[\s,.:;!?)]/.test(after) && !/\s$/.test(before) ? " " : "";
    result = before + joiner + after.replace(/^[ \t]+(?=[,.:;!?])/, "");
  }
  return result.trim();
}

function updateKind(update: Update): string {
  return Object.keys(update).find((key) => key !== "update_id") ?? "unknown";
}

const mediaKinds = [
  "sticker",
  "photo",
  "video",
  "voice",
  "audio",
  "document",
  "animation",
  "video_note",
  "location",
  "contact",
  "poll",
  "dice",
  "new_chat_members",
  "left_chat_member",
  "pinned_message",
  "forum_topic_created",
] as const;

function messageKind(message: Message): string {
  return mediaKinds.find((kind) => message[kind] !== undefined) ?? "service message";
}
