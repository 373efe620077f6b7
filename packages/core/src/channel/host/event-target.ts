import type { ChannelTarget } from "../../store/outbox-store.js";
import type { ParsedChannelEvent } from "../adapter/channel-event.js";

/** Where an answer to `event` goes: its chat and thread, as a reply to it. */
export function eventTarget(
  event: Pick<ParsedChannelEvent, "chatId" | "chatType" | "messageId" | "threadId">,
): ChannelTarget {
  return {
    chatId: event.chatId,
    chatType: event.chatType,
    replyToMessageId: event.messageId,
    ...(event.threadId ? { threadId: event.threadId } : {}),
  };
}
