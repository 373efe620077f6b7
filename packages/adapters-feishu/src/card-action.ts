import type { ChannelEvent } from "@downcity/core";
import { z } from "zod";
import { actionValueKey } from "./feishu-reply-card.js";

/** The fields of a `card.action.trigger` callback we read (the SDK flattens header and event into one object). */
export const feishuCardActionSchema = z.object({
  event_id: z.string().min(1),
  operator: z.object({ open_id: z.string().optional(), user_id: z.string().optional() }),
  action: z.object({ value: z.record(z.string(), z.unknown()).optional(), tag: z.string().optional() }),
  context: z.object({ open_message_id: z.string().min(1), open_chat_id: z.string().min(1) }),
});

/** A parsed `card.action.trigger` callback. */
export type FeishuCardAction = z.output<typeof feishuCardActionSchema>;

/** What the adapter knows of a card it sent: the chat's type and the thread it went to. */
export interface SentCardPlace {
  chatType?: "direct" | "group";
  threadId?: string;
}

/**
 * Maps a press of one of our buttons to a channel event: `action.id` from the button's value, the
 * callback's event id as `callbackId` (how `answerAction` finds the press), the card's message id,
 * the operator as the user, no text. A press is addressed to the bot, so it counts as a mention.
 * `undefined` for callbacks of buttons the adapter did not make.
 */
export function mapFeishuCardAction(
  callback: FeishuCardAction,
  place: SentCardPlace & { chatType: "direct" | "group" },
): ChannelEvent | undefined {
  const id = callback.action.value?.[actionValueKey];
  if (typeof id !== "string" || id.length === 0 || id.length > 64) return undefined;
  const userId = callback.operator.open_id ?? callback.operator.user_id;
  if (!userId) return undefined;
  return {
    eventId: callback.event_id,
    chatId: callback.context.open_chat_id,
    chatType: place.chatType,
    userId,
    text: "",
    messageId: callback.context.open_message_id,
    ...(place.threadId ? { threadId: place.threadId } : {}),
    mentionedBot: true,
    action: { id, callbackId: callback.event_id },
    fromBot: false,
  };
}
