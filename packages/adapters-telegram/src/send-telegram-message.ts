import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
} from "@downcity/core";
import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { describeTelegramError } from "./telegram-error.js";

/** How one message is sent: as Telegram HTML when `parseMode` says so, with buttons when `replyMarkup` has them. */
export interface TelegramSendFormat {
  parseMode?: "HTML";
  replyMarkup?: InlineKeyboardMarkup;
}

/**
 * Sends one text to a chat (and forum topic), as a reply to the triggering message when there is one,
 * as Telegram HTML when `parseMode` says so.
 * Failures become `ChannelSendError`s: 429 carries retry_after, 4xx that retrying cannot fix are permanent.
 */
export async function sendTelegramMessage(
  api: Api,
  token: string,
  target: ChannelTarget,
  message: ChannelMessage,
  format: TelegramSendFormat = {},
): Promise<ChannelSendResult> {
  try {
    const sent = await api.sendMessage(target.chatId, message.text, {
      ...(format.parseMode ? { parse_mode: format.parseMode } : {}),
      ...(format.replyMarkup ? { reply_markup: format.replyMarkup } : {}),
      ...placement(target),
    });
    return { messageId: String(sent.message_id) };
  } catch (error) {
    throw toChannelSendError(error, token);
  }
}

/** Where a message goes within its chat: the forum topic, and the message it answers. */
export function placement(target: ChannelTarget) {
  const threadId = telegramId(target.threadId);
  const replyTo = telegramId(target.replyToMessageId);
  return {
    ...(threadId !== undefined ? { message_thread_id: threadId } : {}),
    ...(replyTo !== undefined
      ? // The reply still goes out if the triggering message was deleted meanwhile.
        { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } }
      : {}),
  };
}

/** A failed Bot API call as the outbox reads it: 429 carries retry_after, 4xx that retrying cannot fix are permanent. */
export function toChannelSendError(error: unknown, token: string): ChannelSendError {
  if (error instanceof ChannelSendError) return error;
  const failure = describeTelegramError(error, token);
  const status = failure.status;
  if (status === 429)
    return new ChannelSendError(failure.message, { status, retryAfterMs: failure.retryAfterMs ?? 1000 });
  // 400 (bad chat, text too long), 401/404 (bad token), 403 (blocked, kicked): the same call fails again.
  const permanent = status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 409;
  return new ChannelSendError(failure.message, { ...(status !== undefined ? { status } : {}), permanent });
}

/** Bot API ids are integers; anything else is passed through as is for the server to judge. */
export function telegramId(id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  const value = Number(id);
  return /^-?\d+$/.test(id) && Number.isSafeInteger(value) ? value : (id as unknown as number);
}
