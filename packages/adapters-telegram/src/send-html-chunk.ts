import {
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
  telegramHtmlToText,
} from "@downcity/core";
import type { Api } from "grammy";
import { sendTelegramMessage } from "./send-telegram-message.js";

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
): Promise<ChannelSendResult> {
  try {
    return await sendTelegramMessage(api, token, target, { text: html }, { parseMode: "HTML" });
  } catch (error) {
    if (!isEntityParseError(error)) throw error;
    onFallback?.({ reason: error.message, chatId: target.chatId });
    return sendTelegramMessage(api, token, target, { text: telegramHtmlToText(html) });
  }
}

function isEntityParseError(error: unknown): error is ChannelSendError {
  return (
    error instanceof ChannelSendError && error.status === 400 && /can't parse entities/i.test(error.message)
  );
}
