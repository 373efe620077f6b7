import type { ChannelTyping } from "@downcity/core";
import { qqRequest } from "./qq-http.js";
import { qqMessagesPath } from "./qq-post-part.js";
import { qqMessageSeq } from "./qq-sender.js";
import type { QqTokenSource } from "./qq-token-source.js";

/** How long one notice shows "typing…" (the platform's maximum). */
export const qqTypingSeconds = 60;
/** Notices sent per user message at most (QQ's docs do not say whether they count toward its five replies). */
export const qqTypingNoticesPerMessage = 2;

/**
 * "Typing…" in direct (C2C) chats: an input notice (`msg_type` 6, `input_notify: { input_type: 1,
 * input_second: 60 }`) that shows for a minute or until the bot's next message, renewed after 55 s, at
 * most twice per user message. Groups have no such notice: nothing is sent there.
 */
export function createQqTyping(settings: {
  apiBase: string;
  tokens: QqTokenSource;
  kind(chatId: string): "direct" | "group" | undefined;
}): ChannelTyping {
  const notices = new Map<string, number>();
  return {
    refreshMs: 55_000,
    async start(target) {
      if ((target.chatType ?? settings.kind(target.chatId)) !== "direct") return;
      const counted = target.replyToMessageId ?? `chat:${target.chatId}`;
      const count = notices.get(counted) ?? 0;
      if (count >= qqTypingNoticesPerMessage) return;
      notices.delete(counted);
      notices.set(counted, count + 1);
      if (notices.size > 1000) notices.delete(notices.keys().next().value as string);
      await qqRequest(settings, "POST", qqMessagesPath({ chatId: target.chatId, chatType: "direct" }), {
        msg_type: 6,
        input_notify: { input_type: 1, input_second: qqTypingSeconds },
        msg_seq: qqMessageSeq(`typing:${counted}:${count}`),
        ...(target.replyToMessageId ? { msg_id: target.replyToMessageId } : {}),
      });
    },
  };
}
