import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";

const c2cSchema = z.object({
  id: z.string().min(1),
  author: z.object({ user_openid: z.string().min(1) }),
  content: z.string().default(""),
  timestamp: z.string().optional(),
});

const groupSchema = z.object({
  id: z.string().min(1),
  author: z.object({ member_openid: z.string().min(1) }),
  group_openid: z.string().min(1),
  content: z.string().default(""),
  timestamp: z.string().optional(),
});

/** The event types this adapter reads: direct (C2C) messages and group messages that @-mention the bot. */
export const qqMessageEventTypes = ["C2C_MESSAGE_CREATE", "GROUP_AT_MESSAGE_CREATE"] as const;

/** A mapped QQ message with the time it was sent (the reply window counts from it). */
export interface MappedQqEvent {
  event: ChannelEvent;
  sentAt: number | undefined;
}

/**
 * Maps a QQ dispatch (`t`, the payload's `id`, `d`) to a channel event, or `undefined` for other event types and
 * messages without text (an image alone). C2C messages are direct chats keyed by the user's openid; group
 * @-messages are groups keyed by group_openid, always a mention of the bot (the platform only delivers those, with
 * the mention already removed). QQ has no threads.
 */
export function mapQqEvent(
  type: string | undefined,
  deliveryId: string | undefined,
  data: unknown,
): MappedQqEvent | undefined {
  const strip = (content: string) => content.replace(/^\s*<@!?\w+>\s*/, "").trim();
  const time = (timestamp: string | undefined) => {
    const parsed = timestamp ? Date.parse(timestamp) : Number.NaN;
    return Number.isFinite(parsed) ? parsed : undefined;
  };
  if (type === "C2C_MESSAGE_CREATE") {
    const parsed = c2cSchema.safeParse(data);
    if (!parsed.success) return undefined;
    const text = strip(parsed.data.content);
    if (!text) return undefined;
    return {
      event: {
        eventId: deliveryId || parsed.data.id,
        chatId: parsed.data.author.user_openid,
        chatType: "direct",
        userId: parsed.data.author.user_openid,
        text,
        messageId: parsed.data.id,
        mentionedBot: false,
        fromBot: false,
      },
      sentAt: time(parsed.data.timestamp),
    };
  }
  if (type === "GROUP_AT_MESSAGE_CREATE") {
    const parsed = groupSchema.safeParse(data);
    if (!parsed.success) return undefined;
    const text = strip(parsed.data.content);
    if (!text) return undefined;
    return {
      event: {
        eventId: deliveryId || parsed.data.id,
        chatId: parsed.data.group_openid,
        chatType: "group",
        userId: parsed.data.author.member_openid,
        text,
        messageId: parsed.data.id,
        mentionedBot: true,
        fromBot: false,
      },
      sentAt: time(parsed.data.timestamp),
    };
  }
  return undefined;
}
