import type { ChannelFake, FakeIncoming, FakeSent } from "@downcity/core/test";
import { type FakeTelegramServer, startFakeTelegramServer } from "./fake-telegram-server.js";

/** The conformance suite's view of the fake Bot API: deliveries are acknowledged by offset confirmation. */
export interface TelegramConformanceFake extends ChannelFake {
  readonly server: FakeTelegramServer;
}

/** Starts a fake Bot API server wrapped for `testChannelAdapter`. */
export async function createTelegramConformanceFake(): Promise<TelegramConformanceFake> {
  const server = await startFakeTelegramServer();
  const handle = `@${server.bot.username}`;
  return {
    server,
    hasNonText: true,
    async deliver(message: FakeIncoming, options = {}) {
      let updateId: number;
      if (message.eventId !== undefined) {
        // Telegram redelivers under the same update_id.
        updateId = Number(message.eventId);
        server.redeliver(updateId);
      } else {
        const mention = message.mentionBot ? `${handle} ` : "";
        updateId = server.injectMessage({
          chatId: message.chatId,
          chatType: message.chatType === "direct" ? "private" : "supergroup",
          from: { id: message.userId, ...(message.username ? { username: message.username } : {}) },
          ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
          ...(message.nonText
            ? { sticker: true }
            : {
                text: `${mention}${message.text}`,
                ...(message.mentionBot
                  ? { entities: [{ type: "mention", offset: 0, length: handle.length }] }
                  : {}),
              }),
        });
      }
      // Acknowledged = a later getUpdates asked for an offset above this update.
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (!server.isConfirmed(updateId) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 10));
      return { acked: server.isConfirmed(updateId), eventId: String(updateId) };
    },
    sent(): FakeSent[] {
      return server.sent().map((message) => ({
        chatId: message.chat_id,
        ...(message.message_thread_id !== undefined ? { threadId: String(message.message_thread_id) } : {}),
        text: message.text,
      }));
    },
    rateLimitNextSends(count, retryAfterMs) {
      // Telegram states retry_after in whole seconds.
      for (let index = 0; index < count; index++)
        server.failNext("sendMessage", {
          status: 429,
          retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)),
        });
    },
    close: () => server.close(),
  };
}
