import type { AttachmentFetch, ChannelAttachment, ChannelEvent } from "@downcity/core";
import { z } from "zod";
import type { FeishuResource } from "./download-feishu-resource.js";
import { type FeishuAttachmentRef, readFeishuContent } from "./read-feishu-content.js";

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

/** Makes the download of one resource of the message being mapped (the adapter's message resource API). */
export type FeishuResourceFetcher = (resource: FeishuResource) => AttachmentFetch;

/**
 * Maps a Lark message event to a channel event, or `undefined` for what the agent cannot read. Files (images,
 * files, audio, video, a post's images) become attachments whose `fetch` uses `fetcher`; without one they are
 * left out. `p2p` chats are direct, everything else a group; the bot is mentioned when its open_id is among
 * the mentions (`@_all` is not a mention of the bot); the bot's mention key is stripped, other users' keys
 * become @name.
 */
export function mapFeishuMessage(
  event: FeishuMessageEvent,
  botOpenId: string | undefined,
  fetcher?: FeishuResourceFetcher,
): ChannelEvent | undefined {
  const { message, sender } = event;
  const content = readFeishuContent(message.message_type, message.content);
  if (!content) return undefined;
  const attachments = content.attachments.flatMap((ref) =>
    channelAttachment(ref, message.message_id, fetcher),
  );
  if (!content.text.trim() && attachments.length === 0) return undefined;

  let text = content.text;
  let mentionedBot = false;
  for (const mention of message.mentions ?? []) {
    const isBot = botOpenId !== undefined && mention.id?.open_id === botOpenId;
    if (isBot) mentionedBot = true;
    // The bot's key goes with the space after it; spaces elsewhere (a post's code) are kept as written.
    if (isBot) text = text.split(`${mention.key} `).join("");
    text = text.split(mention.key).join(isBot ? "" : `@${mention.name ?? mention.id?.open_id ?? "user"}`);
  }
  text = text.split("@_all").join("@all").trim();

  const userId = sender.sender_id?.open_id ?? sender.sender_id?.user_id ?? "unknown";
  return {
    eventId: event.event_id,
    chatId: message.chat_id,
    chatType: message.chat_type === "p2p" ? "direct" : "group",
    userId,
    text,
    ...(attachments.length > 0 ? { attachments } : {}),
    messageId: message.message_id,
    ...(message.thread_id ? { threadId: message.thread_id } : {}),
    ...(message.parent_id ? { replyToMessageId: message.parent_id } : {}),
    mentionedBot,
    fromBot: sender.sender_type !== undefined && sender.sender_type !== "user",
  };
}

function channelAttachment(
  ref: FeishuAttachmentRef,
  messageId: string,
  fetcher: FeishuResourceFetcher | undefined,
): ChannelAttachment[] {
  const { resource, ...described } = ref;
  if (!resource) return [described];
  if (!fetcher) return [];
  return [{ ...described, fetch: fetcher({ messageId, fileKey: resource.key, type: resource.type }) }];
}
