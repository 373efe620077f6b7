import type { Message, MessageEntity, User } from "grammy/types";

/** A message update to inject, with defaults for everything not under test. */
export interface FakeMessageInput {
  /** Telegram ids are integers; the conformance suite's string ids are passed through as they are. */
  chatId?: number | string;
  chatType?: "private" | "group" | "supergroup";
  from?: Partial<Omit<User, "id">> & { id: number | string };
  text?: string;
  caption?: string;
  entities?: MessageEntity[];
  /** A forum topic: sets message_thread_id and is_topic_message. */
  threadId?: number | string;
  replyTo?: { message_id: number; from: User };
  /** A sticker instead of text. */
  sticker?: boolean;
  /**
   * Media fields of the Message as Telegram sends them (`photo`, `voice`, `document`, `media_group_id`,
   * `location`, ...), referencing files from `addFile`; with `caption` as its text, no text otherwise.
   */
  media?: Record<string, unknown>;
  /** A service message (a pinned message) that carries nothing for the agent. */
  service?: boolean;
}

/** Builds a Bot API Message as Telegram shapes it (forum topics, replies, captions, stickers). */
export function buildFakeMessage(input: FakeMessageInput, messageId: number): Message {
  const from: User = {
    is_bot: false,
    first_name: "Ada",
    username: "ada",
    ...input.from,
    id: input.from?.id ?? 42,
  } as User;
  const chatType = input.chatType ?? "private";
  const chatId = input.chatId ?? (chatType === "private" ? from.id : -1001234567890);
  const chat =
    chatType === "private"
      ? {
          id: chatId,
          type: "private",
          first_name: from.first_name,
          ...(from.username ? { username: from.username } : {}),
        }
      : {
          id: chatId,
          type: chatType,
          title: "Test group",
          ...(input.threadId !== undefined ? { is_forum: true } : {}),
        };
  const message: Record<string, unknown> = {
    message_id: messageId,
    from,
    chat,
    date: Math.floor(Date.now() / 1000),
  };
  if (input.threadId !== undefined) {
    message.message_thread_id = input.threadId;
    message.is_topic_message = true;
    // In a forum topic, a message that replies to nothing still points at the topic's creation message.
    message.reply_to_message = input.replyTo ?? {
      message_id: input.threadId,
      from,
      chat,
      date: message.date,
      forum_topic_created: { name: "Topic", icon_color: 7322096 },
      message_thread_id: input.threadId,
      is_topic_message: true,
    };
  } else if (input.replyTo) {
    message.reply_to_message = { ...input.replyTo, chat, date: message.date, text: "earlier" };
  }
  if (input.media) {
    Object.assign(message, input.media);
    if (input.caption !== undefined) message.caption = input.caption;
    if (input.entities && input.caption !== undefined) message.caption_entities = input.entities;
  } else if (input.service) {
    message.pinned_message = { message_id: 1, chat, date: message.date, text: "pinned" };
  } else if (input.sticker) {
    message.sticker = {
      file_id: "CAAC",
      file_unique_id: "AgAD",
      type: "regular",
      width: 512,
      height: 512,
      emoji: "👍",
      is_animated: false,
      is_video: false,
    };
  } else if (input.caption !== undefined) {
    message.photo = [{ file_id: "AgAC", file_unique_id: "AQAD", width: 90, height: 90 }];
    message.caption = input.caption;
    if (input.entities) message.caption_entities = input.entities;
  } else {
    message.text = input.text ?? "hello";
    if (input.entities) message.entities = input.entities;
  }
  return message as unknown as Message;
}
