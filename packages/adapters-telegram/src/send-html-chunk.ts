import {
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
  telegramHtmlToText,
} from "@downcity/core";
import type { Api } from "grammy";
import { sendTelegramMessage, type TelegramSendFormat } from "./send-telegram-message.js";

/** What the adapter says when Telegram refused a chunk's HTML and it went out as plain text. */
export type HtmlFallbackListener = (details: { reason: string; chatId: string }) => void;

/**
 * Sends one rendered chunk with `parse_mode: "HTML"`. When Telegram answers 400 "can't parse
 * entities" it delivered nothing, so the same chunk goes out once more as the plain text Telegram
 * would have shown: the reply is never lost, and never doubled. Any other failure is thrown as is.
 */
export async function sendHtmlChunk(
  api: Api,
  token: string,
  target: ChannelTarget,
  html: string,
  onFallback?: HtmlFallbackListener,
  format: Omit<TelegramSendFormat, "parseMode"> = {},
): Promise<ChannelSendResult> {
  return withPlainTextFallback(
    html,
    (text, parseMode) => sendTelegramMessage(api, token, target, { text }, { ...format, ...parseMode }),
    (reason) => onFallback?.({ reason, chatId: target.chatId }),
  );
}

/**
 * Runs `send` with the HTML; on Telegram's 400 "can't parse entities" (nothing was delivered) runs it
 * once more with the plain text Telegram would have shown. Used for messages, captions and edits.
 */
export async function withPlainTextFallback<Result>(
  html: string,
  send: (text: string, parseMode: { parseMode?: "HTML" }) => Promise<Result>,
  onFallback?: (reason: string) => void,
): Promise<Result> {
  try {
    return await send(html, { parseMode: "HTML" });
  } catch (error) {
    if (!isEntityParseError(error)) throw error;
    onFallback?.(error.message);
    return send(telegramHtmlToText(html), {});
  }
}

/** True for Telegram's 400 "can't parse entities" (the HTML was refused, nothing was delivered). */
export function isEntityParseError(error: unknown): error is ChannelSendError {
  return (
    error instanceof ChannelSendError && error.status === 400 && /can't parse entities/i.test(error.message)
  );
}
