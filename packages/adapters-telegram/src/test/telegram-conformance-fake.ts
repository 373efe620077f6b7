import type { ChannelFake, ChannelFakeLiveness, FakeIncoming, FakeSent } from "@downcity/core/test";
import { freePort } from "@downcity/testkit";
import { setTelegramWebhook } from "../set-telegram-webhook.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./fake-telegram-server.js";

/**
 * The conformance suite's view of the fake Bot API. Polling: a delivery is acknowledged when a later
 * getUpdates confirms it. Webhook: the fake POSTs it to the channel until it answers 2xx.
 */
export interface TelegramConformanceFake extends ChannelFake, ChannelFakeLiveness {
  readonly server: FakeTelegramServer;
  /** The channel options that point the adapter at this fake. */
  readonly options: Record<string, unknown>;
}

/** Starts a fake Bot API server wrapped for `testChannelAdapter`, for polling or webhook mode. */
export async function createTelegramConformanceFake(
  mode: "polling" | "webhook" = "polling",
): Promise<TelegramConformanceFake> {
  const server = await startFakeTelegramServer();
  const handle = `@${server.bot.username}`;
  let options: Record<string, unknown> = { token: server.token, apiRoot: server.url, pollTimeoutSeconds: 2 };
  if (mode === "webhook") {
    const listen = `127.0.0.1:${await freePort()}`;
    const secretToken = "conformance-secret";
    options = { token: server.token, apiRoot: server.url, mode, listen, path: "/tg", secretToken };
    // As `downcity tg set-webhook` would have done once, beforehand.
    await setTelegramWebhook({
      token: server.token,
      apiRoot: server.url,
      url: `http://${listen}/tg`,
      secretToken,
    });
  }
  return {
    server,
    options,
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
            ? { service: true }
            : {
                text: `${mention}${message.text}`,
                ...(message.mentionBot
                  ? { entities: [{ type: "mention", offset: 0, length: handle.length }] }
                  : {}),
              }),
        });
      }
      // Acknowledged = a later getUpdates asked for an offset above it, or the webhook answered 2xx.
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
    typingSeen() {
      return server.calls("sendChatAction").map(({ payload }) => ({
        chatId: String(payload.chat_id),
        ...(payload.message_thread_id !== undefined ? { threadId: String(payload.message_thread_id) } : {}),
      }));
    },
    sentMessage(messageId) {
      const message = server.sent().find((sent) => String(sent.message_id) === messageId);
      return message ? { text: message.text, deleted: message.deleted === true } : undefined;
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
