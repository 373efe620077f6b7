import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";
import { mapQqAttachment, qqAttachmentSchema, qqVoiceTranscripts } from "./map-qq-attachment.js";

// Every field of an attachment is read leniently: a malformed one still reaches the host, which tells the user.
const attachments = z
  .array(qqAttachmentSchema)
  .catch([])
  .default([])
  .transform((list) => list.slice(0, 32));

const c2cSchema = z.object({
  id: z.string().min(1),
  author: z.object({ user_openid: z.string().min(1) }),
  content: z.string().default(""),
  timestamp: z.string().optional(),
  attachments,
});

const groupSchema = z.object({
  id: z.string().min(1),
  author: z.object({ member_openid: z.string().min(1) }),
  group_openid: z.string().min(1),
  content: z.string().default(""),
  timestamp: z.string().optional(),
  attachments,
});

/** The event types this adapter reads: direct (C2C) messages and group messages that @-mention the bot. */
export const qqMessageEventTypes = ["C2C_MESSAGE_CREATE", "GROUP_AT_MESSAGE_CREATE"] as const;

/** A mapped QQ message with the time it was sent (the reply window counts from it). */
export interface MappedQqEvent {
  event: ChannelEvent;
  sentAt: number | undefined;
}

/** How attachments are fetched. */
export interface MapQqEventOptions {
  /** Longest download of one attachment [60 s]. */
  downloadTimeoutMs?: number;
}

const strip = (content: string) => content.replace(/^\s*<@!?\w+>\s*/, "").trim();
const time = (timestamp: string | undefined) => {
  const parsed = timestamp ? Date.parse(timestamp) : Number.NaN;
  return Number.isFinite(parsed) ? parsed : undefined;
};

/**
 * Maps a QQ dispatch (`t`, the payload's `id`, `d`) to a channel event, or `undefined` for other event types and
 * messages with neither text nor attachments. C2C messages are direct chats keyed by the user's openid; group
 * @-messages are groups keyed by group_openid, always a mention of the bot (the platform only delivers those, with
 * the mention already removed). Images, voice notes, videos and files become attachments the host downloads; the
 * platform's transcript of a voice note is added to the text, marked as machine-made. QQ has no threads.
 */
export function mapQqEvent(
  type: string | undefined,
  deliveryId: string | undefined,
  data: unknown,
  options: MapQqEventOptions = {},
): MappedQqEvent | undefined {
  const parsed =
    type === "C2C_MESSAGE_CREATE"
      ? c2cSchema.safeParse(data)
      : type === "GROUP_AT_MESSAGE_CREATE"
        ? groupSchema.safeParse(data)
        : undefined;
  if (!parsed?.success) return undefined;
  const message = parsed.data;
  const text = [strip(message.content), qqVoiceTranscripts(message.attachments)].filter(Boolean).join("\n");
  if (!text && message.attachments.length === 0) return undefined;
  const timeoutMs = options.downloadTimeoutMs ?? 60_000;
  const group = "group_openid" in message ? message : undefined;
  const userId = "user_openid" in message.author ? message.author.user_openid : message.author.member_openid;
  return {
    event: {
      eventId: deliveryId || message.id,
      chatId: group ? group.group_openid : userId,
      chatType: group ? "group" : "direct",
      userId,
      text,
      ...(message.attachments.length
        ? { attachments: message.attachments.map((attachment) => mapQqAttachment(attachment, timeoutMs)) }
        : {}),
      messageId: message.id,
      mentionedBot: group !== undefined,
      fromBot: false,
    },
    sentAt: time(message.timestamp),
  };
}
