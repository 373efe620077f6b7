import type { ChannelEvent } from "@downcity/core";
import type { CallbackQuery } from "grammy/types";

/**
 * Maps a button press (a `callback_query` on a message the bot sent) to a channel event: the action id
 * is the button's callback_data, `callbackId` answers it with a toast, `messageId` is the message the
 * button was under, and the text is empty. A press is addressed to the bot, so it counts as a mention.
 */
export function mapTelegramCallback(
  updateId: number,
  query: CallbackQuery,
): { event: ChannelEvent } | { ignored: string } {
  // Inline-mode messages have no chat, and game buttons carry no data: neither is an action of ours.
  if (!query.message) return { ignored: "button press on an inline-mode message" };
  if (query.data === undefined || query.data.length === 0) return { ignored: "button press without data" };
  const message = query.message;
  // An inaccessible message (older than 48 h) keeps its chat and id but says nothing of its topic.
  const threadId =
    "is_topic_message" in message && message.is_topic_message && message.message_thread_id !== undefined
      ? String(message.message_thread_id)
      : undefined;
  const displayName = [query.from.first_name, query.from.last_name].filter(Boolean).join(" ");
  return {
    event: {
      eventId: String(updateId),
      chatId: String(message.chat.id),
      chatType: message.chat.type === "private" ? "direct" : "group",
      userId: String(query.from.id),
      ...(query.from.username ? { username: query.from.username } : {}),
      ...(displayName ? { displayName } : {}),
      text: "",
      messageId: String(message.message_id),
      ...(threadId ? { threadId } : {}),
      mentionedBot: true,
      action: { id: query.data, callbackId: query.id },
      fromBot: query.from.is_bot,
    },
  };
}
