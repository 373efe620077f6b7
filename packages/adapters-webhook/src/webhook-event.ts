import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";
import { toChannelAttachment, webhookAttachmentSchema } from "./webhook-attachments.js";

// Messages name no field: errorFromZod puts the field path in front of each one.
const stringError = (issue: { input?: unknown }) =>
  issue.input === undefined ? "is required (a string)" : "must be a string";

const id = (max: number) =>
  z
    .string({ error: stringError })
    .min(1, { error: "must not be empty" })
    .max(max, { error: `must be at most ${max} characters` });

/** The JSON body of an inbound `POST /events` request. */
export const webhookEventSchema = z.object({
  /** The sender's id of this delivery: a resend with the same id is answered `{ duplicate: true }`. */
  eventId: id(200),
  chatId: id(256),
  chatType: z.enum(["direct", "group"], { error: 'must be "direct" or "group"' }),
  userId: id(256),
  username: z.string({ error: stringError }).max(256).optional(),
  displayName: z.string({ error: stringError }).max(512).optional(),
  /** A group's name: `downcity access pending` lists refused groups by it. */
  chatTitle: z.string({ error: stringError }).max(512).optional(),
  /** The message text, with any mention of the bot already stripped; may be empty with attachments. */
  text: z.string({ error: stringError }).max(512 * 1024, { error: "must be at most 524288 characters" }),
  /** Files sent with the message: each `{ mediaType, name?, url? | data? }`. */
  attachments: z.array(webhookAttachmentSchema).max(32, { error: "must hold at most 32 files" }).optional(),
  /** The platform's message id (replies thread to it); defaults to `eventId`. */
  messageId: id(256).optional(),
  threadId: id(256).optional(),
  replyToMessageId: id(256).optional(),
  /** True when the message mentions or replies to the bot (needed in groups with `requireMention`). */
  mentioned: z.boolean({ error: "must be true or false" }).optional(),
  /** True when a bot sent the message: such events are ignored. */
  fromBot: z.boolean({ error: "must be true or false" }).optional(),
});

/** An inbound webhook event as its sender writes it. */
export type WebhookEvent = z.output<typeof webhookEventSchema>;

/** Maps a validated webhook body to the channel event the inbox takes. */
export function toChannelEvent(body: WebhookEvent): ChannelEvent {
  return {
    eventId: body.eventId,
    chatId: body.chatId,
    chatType: body.chatType,
    userId: body.userId,
    ...(body.username === undefined ? {} : { username: body.username }),
    ...(body.displayName === undefined ? {} : { displayName: body.displayName }),
    ...(body.chatTitle === undefined ? {} : { chatTitle: body.chatTitle }),
    text: body.text,
    ...(body.attachments?.length ? { attachments: body.attachments.map(toChannelAttachment) } : {}),
    messageId: body.messageId ?? body.eventId,
    ...(body.threadId === undefined ? {} : { threadId: body.threadId }),
    ...(body.replyToMessageId === undefined ? {} : { replyToMessageId: body.replyToMessageId }),
    mentionedBot: body.mentioned ?? false,
    fromBot: body.fromBot ?? false,
  };
}
