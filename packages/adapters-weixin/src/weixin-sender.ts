import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
  type Logger,
  renderPlainText,
} from "@downcity/core";
import { WeixinApiError } from "./weixin-api-error.js";
import type { WeixinChatBook } from "./weixin-chat-book.js";
import type { WeixinPart, WeixinPendingFollowUps } from "./weixin-pending-follow-ups.js";
import { postWeixinPart, type WeixinPostSettings, weixinClientId } from "./weixin-post-part.js";

/** What sending needs: the connection, the chats heard from, the kept follow-ups and the limits. */
export interface WeixinSenderSettings {
  /** The connection (undefined before `start` read the bot token). */
  connection(): WeixinPostSettings | undefined;
  book: WeixinChatBook;
  pending(): WeixinPendingFollowUps | undefined;
  maxTextLength: number;
  /** How long a context token is used after its message [24 h]. */
  contextTokenMaxAgeMs: number;
  logger?: Logger;
  channel?: string;
  now?: () => number;
}

/** Splits text into pieces of at most `max` characters, at a line break where there is one. */
export function splitPlain(text: string, max: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = rest.lastIndexOf("\n", max);
    const at = cut > max / 2 ? cut : max;
    pieces.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, "");
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** The parts of an outgoing message: its Markdown rendered as plain text (WeChat shows no Markdown), then its files. */
export function weixinMessageParts(message: ChannelMessage, maxTextLength: number): WeixinPart[] {
  const text = message.text.trim() ? renderPlainText(message.text) : "";
  return [
    ...splitPlain(text, maxTextLength).map((piece) => ({ kind: "text" as const, text: piece })),
    ...(message.attachments ?? []).map((file) => ({
      kind: "file" as const,
      name: file.name,
      mediaType: file.mediaType,
      data: file.data,
    })),
  ];
}

/** True when iLink refused a send as a reply it no longer allows (its context token is stale). */
export function isReplyRefused(error: unknown): boolean {
  return WeixinApiError.isInstance(error) && error.status === 200 && !error.sessionExpired;
}

/** Turns a failed call into what the outbox understands. */
export function toChannelSendError(error: unknown): ChannelSendError {
  if (error instanceof ChannelSendError) return error;
  if (!WeixinApiError.isInstance(error))
    return new ChannelSendError(`WeChat send failed: ${(error as Error).message}`);
  if (error.status === 429)
    return new ChannelSendError(`WeChat rate limit: ${error.message}`, {
      retryAfterMs: error.retryAfterMs ?? 1000,
      status: 429,
    });
  if (error.sessionExpired)
    return new ChannelSendError(
      "WeChat bot token expired (errcode -14): bind again with `downcity channels login <name>`",
    );
  if (error.status === 0 || error.status >= 500)
    return new ChannelSendError(`WeChat send failed: ${error.message}`);
  return new ChannelSendError(`WeChat refused the message: ${error.message}`, {
    permanent: true,
    status: error.status,
  });
}

async function keepForNextMessage(
  settings: WeixinSenderSettings,
  chatId: string,
  key: string,
  parts: WeixinPart[],
) {
  const pending = settings.pending();
  if (!pending) throw new ChannelSendError("WeChat channel is not started: cannot keep the follow-up");
  await pending.keep(chatId, { key, parts }).catch((error: unknown) => {
    throw new ChannelSendError(`WeChat follow-up could not be kept: ${(error as Error).message}`);
  });
  settings.logger?.info(
    { channel: settings.channel, chatId },
    "WeChat allows no message without a fresh context token; kept it for this chat's next message",
  );
}

/**
 * Sends one outbox entry to a WeChat chat as passive replies: each part with the context token of the
 * message it answers (or the chat's newest, while fresh) and a `client_id` fixed by the entry's key and the
 * part. Without a usable token, or once iLink refuses the token, the rest is kept in the state folder and
 * sent when the user writes next (the send succeeds: the outbox is done with it).
 */
export async function sendWeixinMessage(
  settings: WeixinSenderSettings,
  target: ChannelTarget,
  message: ChannelMessage,
  key: string,
): Promise<ChannelSendResult> {
  const connection = settings.connection();
  if (!connection) throw new ChannelSendError("WeChat channel is not started (no bot token yet)");
  const chatType = target.chatType ?? settings.book.kind(target.chatId) ?? "direct";
  const parts = weixinMessageParts(message, settings.maxTextLength);
  if (parts.length === 0) return {};
  const now = (settings.now ?? Date.now)();
  const token = settings.book.token(
    target.chatId,
    target.replyToMessageId,
    now,
    settings.contextTokenMaxAgeMs,
  );
  if (!token) {
    await keepForNextMessage(settings, target.chatId, key, parts);
    return {};
  }
  let result: ChannelSendResult = {};
  for (const [index, part] of parts.entries()) {
    const clientId = weixinClientId(index === 0 ? key : `${key}#${index}`);
    try {
      const id = await postWeixinPart(
        connection,
        { chatId: target.chatId, chatType, contextToken: token, clientId },
        part,
      );
      result = { messageId: id ?? clientId };
    } catch (error) {
      if (!isReplyRefused(error)) throw toChannelSendError(error);
      settings.book.expire(target.chatId, token);
      await keepForNextMessage(
        settings,
        target.chatId,
        index === 0 ? key : `${key}#${index}`,
        parts.slice(index),
      );
      return result;
    }
  }
  return result;
}
