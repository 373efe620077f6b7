import { z } from "zod";
import { channelAttachmentSchema } from "./channel-attachment.js";

/** An incoming chat event as every adapter maps it from its platform (validated at the inbox). */
export const channelEventSchema = z.object({
  /** The platform's id of this delivery, used for dedupe (Telegram update_id, Lark event_id, ...). */
  eventId: z.string().min(1).max(200),
  chatId: z.string().min(1).max(256),
  chatType: z.enum(["direct", "group"]),
  userId: z.string().min(1).max(256),
  username: z.string().max(256).optional(),
  displayName: z.string().max(512).optional(),
  /** A group's name, where the platform gives one (`downcity access pending` lists refused groups by it). */
  chatTitle: z.string().max(512).optional(),
  /** The text, with the bot's mention stripped; may be empty when the event has attachments. */
  text: z.string().max(512 * 1024),
  /** Photos, files, voice notes, stickers, locations: every one kept (an album is one event or several). */
  attachments: z.array(channelAttachmentSchema).max(32).optional(),
  /** The text of the message this one replies to (and notes of its attachments), given to the model. */
  quotedText: z
    .string()
    .max(16 * 1024)
    .optional(),
  messageId: z.string().min(1).max(256),
  threadId: z.string().min(1).max(256).optional(),
  replyToMessageId: z.string().min(1).max(256).optional(),
  /** True when the message mentions or replies to the bot. */
  mentionedBot: z.boolean().default(false),
  /**
   * A press of a button the bot sent (`ChannelMessage.actions`): the action's id, and the platform's
   * handle for answering it privately (Telegram's callback_query id). `messageId` is the message the
   * button was under; `text` is empty.
   */
  action: z.object({ id: z.string().min(1).max(64), callbackId: z.string().max(256).optional() }).optional(),
  /** True when a bot (including this one) sent it: such events are always ignored. */
  fromBot: z.boolean().default(false),
  raw: z.unknown().optional(),
});

/** An incoming chat event. */
export type ChannelEvent = z.input<typeof channelEventSchema>;
/** A validated incoming chat event. */
export type ParsedChannelEvent = z.output<typeof channelEventSchema>;

/** The context id of an event: `<channel>:<chatId>[:<threadId>]`. */
export function channelContextId(
  channel: string,
  event: { chatId: string; threadId?: string | undefined },
): string {
  return event.threadId ? `${channel}:${event.chatId}:${event.threadId}` : `${channel}:${event.chatId}`;
}
