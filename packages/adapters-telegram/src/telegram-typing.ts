import type { ChannelTarget, ChannelTyping } from "@downcity/core";
import type { Api } from "grammy";

/** Telegram shows "typing…" for 5 s after sendChatAction, or until the bot's next message: renewed every 4.5 s. */
export const telegramTypingRefreshMs = 4500;

/** "typing…" in the target's chat and forum topic, via `sendChatAction`. */
export function createTelegramTyping(api: Api): ChannelTyping {
  return {
    refreshMs: telegramTypingRefreshMs,
    async start(target: ChannelTarget) {
      const threadId = Number(target.threadId);
      await api.sendChatAction(
        target.chatId,
        "typing",
        Number.isInteger(threadId) && target.threadId ? { message_thread_id: threadId } : {},
      );
    },
  };
}
