import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";

const mentionSchema = z.object({
  key: z.string(),
  id: z.object({ open_id: z.string().optional() }).partial().optional(),
  name: z.string().optional(),
});

/** The fields of an `im.message.receive_v1` event we read (the SDK flattens header and event into one object). */
export const feishuMessageEventSchema = z.object({
  event_id: z.string().min(1),
  sender: z.object({
    sender_id: z
      .object({ open_id: z.string().optional(), user_id: z.string().optional() })
      .partial()
      .optional(),
    sender_type: z.string().optional(),
  }),
  message: z.object({
    message_id: z.string().min(1),
    chat_id: z.string().min(1),
    chat_type: z.string(),
    thread_id: z.string().optional(),
    parent_id: z.string().optional(),
    message_type: z.string(),
    content: z.string(),
    mentions: z.array(mentionSchema).optional(),
  }),
});

/** A parsed `im.message.receive_v1` event. */
export type FeishuMessageEvent = z.output<typeof feishuMessageEventSchema>;

/**
 * Maps a Lark message event to a channel event, or `undefined` for what the agent cannot read (stickers, images,
 * files). `p2p` chats are direct, everything else a group; the bot is mentioned when its open_id is among the
 * mentions (`@_all` is not a mention of the bot); the bot's mention key is stripped, other users' keys become @name.
 */
export function mapFeishuMessage(
  event: FeishuMessageEvent,
  botOpenId: string | undefined,
): ChannelEvent | undefined {
  const { message, sender } = event;
  let text: string;
  if (message.message_type === "text") {
    const content = safeJson(message.content) as { text?: unknown } | undefined;
    if (typeof content?.text !== "string") return undefined;
    text = content.text;
  } else if (message.message_type === "post") {
    text = postText(safeJson(message.content));
    if (!text) return undefined;
  } else return undefined;

  let mentionedBot = false;
  for (const mention of message.mentions ?? []) {
    const isBot = botOpenId !== undefined && mention.id?.open_id === botOpenId;
    if (isBot) mentionedBot = true;
    text = text.split(mention.key).join(isBot ? "" : `@${mention.name ?? mention.id?.open_id ?? "user"}`);
  }
  text = text
    .split("@_all")
    .join("@all")
    .replace(/[ \t]{2,}/g, " ")
    .trim();

  const userId = sender.sender_id?.open_id ?? sender.sender_id?.user_id ?? "unknown";
  return {
    eventId: event.event_id,
    chatId: message.chat_id,
    chatType: message.chat_type === "p2p" ? "direct" : "group",
    userId,
    text,
    messageId: message.message_id,
    ...(message.thread_id ? { threadId: message.thread_id } : {}),
    ...(message.parent_id ? { replyToMessageId: message.parent_id } : {}),
    mentionedBot,
    fromBot: sender.sender_type !== undefined && sender.sender_type !== "user",
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// A rich-text post: { title, content: [[{ tag: "text", text }, { tag: "at", user_id }], ...] } (maybe under a locale).
function postText(value: unknown): string {
  if (typeof value !== "object" || value === null) return "";
  const post = value as { title?: unknown; content?: unknown };
  const body = Array.isArray(post.content) ? post : (Object.values(value)[0] as typeof post | undefined);
  if (!body || !Array.isArray(body.content)) return "";
  const lines = (body.content as unknown[]).map((paragraph) =>
    Array.isArray(paragraph)
      ? paragraph
          .map((element) => {
            const item = element as { tag?: string; text?: string; user_id?: string; href?: string };
            if (item.tag === "text" || item.tag === "a") return item.text ?? "";
            if (item.tag === "at") return item.user_id ?? "";
            return "";
          })
          .join("")
      : "",
  );
  const title = typeof body.title === "string" && body.title ? [body.title] : [];
  return [...title, ...lines].join("\n").trim();
}
