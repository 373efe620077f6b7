import type { ChannelFake, ChannelFakeLiveness, FakeIncoming, FakeSent } from "@downcity/core/test";
import { freePort } from "@downcity/testkit";
import { setTelegramWebhook } from "../src/set-telegram-webhook.js";
import {
  type FakeFile,
  type FakeTelegramServer,
  startFakeTelegramServer,
} from "../src/test/fake-telegram-server.js";

/**
 * The conformance suite's view of the fake Bot API. Polling: a delivery is acknowledged when a later
 * getUpdates confirms it. Webhook: the fake POSTs it to the channel until it answers 2xx.
 */
export interface TelegramConformanceFake extends ChannelFake, ChannelFakeLiveness {
  readonly server: FakeTelegramServer;
  /** The channel options that point the adapter at this fake. */
  readonly options: Record<string, unknown>;
  /** The next HTML text is refused with Telegram's 400 "can't parse entities". */
  refuseNextFormatted(): void;
}

/** A file the suite sends with a message (the shape of core's `FakeIncomingFile`). */
interface IncomingFile {
  kind: "image" | "audio" | "voice" | "video" | "file";
  mediaType: string;
  name?: string;
  data: Uint8Array;
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
    async deliver(message: FakeIncoming & { files?: IncomingFile[] }, options = {}) {
      let updateIds: number[];
      if (message.eventId !== undefined) {
        // Telegram redelivers under the same update_id.
        updateIds = [Number(message.eventId)];
        server.redeliver(updateIds[0] as number);
      } else updateIds = inject(server, handle, message);
      // Acknowledged = a later getUpdates asked for an offset above it, or the webhook answered 2xx.
      const confirmed = () => updateIds.every((id) => server.isConfirmed(id));
      const deadline = Date.now() + (options.timeoutMs ?? 10_000);
      while (!confirmed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      return { acked: confirmed(), eventId: String(updateIds[0]) };
    },
    sent(): FakeSent[] {
      return server.sent().map((message) => ({
        chatId: message.chat_id,
        ...(message.message_thread_id !== undefined ? { threadId: String(message.message_thread_id) } : {}),
        text: message.text,
        format: message.parse_mode === "HTML" ? "html" : "plain",
        ...(message.file
          ? { files: [{ name: message.file.filename, data: new Uint8Array(message.file.data) }] }
          : {}),
      }));
    },
    refuseNextFormatted: () => server.failNextHtmlParse(),
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

/**
 * Injects the suite's message as Telegram sends it: text (with a mention entity), a service message for
 * `nonText`, or one update per file (an album shares a media_group_id; the caption rides on the first).
 */
function inject(
  server: FakeTelegramServer,
  handle: string,
  message: FakeIncoming & { files?: IncomingFile[] },
): number[] {
  const mention = message.mentionBot ? `${handle} ` : "";
  const base = {
    chatId: message.chatId,
    chatType: message.chatType === "direct" ? ("private" as const) : ("supergroup" as const),
    from: { id: message.userId, ...(message.username ? { username: message.username } : {}) },
    ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
  };
  const entities = message.mentionBot
    ? [{ type: "mention" as const, offset: 0, length: handle.length }]
    : undefined;
  if (message.nonText) return [server.injectMessage({ ...base, service: true })];
  if (!message.files?.length)
    return [
      server.injectMessage({ ...base, text: `${mention}${message.text}`, ...(entities ? { entities } : {}) }),
    ];
  const group = message.files.length > 1 ? { media_group_id: `album-${Date.now()}` } : {};
  return message.files.map((file, index) => {
    const caption = index === 0 && `${mention}${message.text}` ? `${mention}${message.text}` : undefined;
    return server.injectMessage({
      ...base,
      ...(caption !== undefined ? { caption, ...(entities ? { entities } : {}) } : {}),
      media: { ...group, ...mediaField(server.addFile(file.data), file) },
    });
  });
}

// The Message field Telegram uses for each kind of file.
function mediaField(stored: FakeFile, file: IncomingFile): Record<string, unknown> {
  const named = file.name ? { file_name: file.name } : {};
  switch (file.kind) {
    case "image":
      return { photo: [{ ...stored, width: 1, height: 1 }] };
    case "voice":
      return { voice: { ...stored, duration: 1, mime_type: file.mediaType } };
    case "audio":
      return { audio: { ...stored, duration: 1, mime_type: file.mediaType, ...named } };
    case "video":
      return { video: { ...stored, width: 1, height: 1, duration: 1, mime_type: file.mediaType, ...named } };
    default:
      return { document: { ...stored, mime_type: file.mediaType, ...named } };
  }
}
