import {
  type ChannelMessage,
  type ChannelMessageFile,
  type ChannelSendOptions,
  type ChannelSendResult,
  type ChannelTarget,
  escapeHtml,
  renderTelegramChunks,
  telegramHtmlToText,
} from "@downcity/core";
import type { Api } from "grammy";
import type { InlineKeyboardMarkup } from "grammy/types";
import { createReplyProgress } from "./reply-progress.js";
import { sendHtmlChunk, withPlainTextFallback } from "./send-html-chunk.js";
import { sendTelegramFile } from "./send-telegram-file.js";
import { telegramKeyboard } from "./telegram-keyboard.js";

/** Telegram's limits: 4,096 characters a message, 1,024 a caption (both UTF-16 units). */
export const telegramTextLimit = 4096;
export const telegramCaptionLimit = 1024;

/** One message of a reply: a rendered text chunk, or a file with an optional HTML caption. */
type ReplyPart = { html: string } | { file: ChannelMessageFile; caption?: string };

/** What a reply's sends report: Telegram refused some HTML and got plain text instead. */
export type ReplyFallbackListener = (details: { reason: string; chatId: string }) => void;

/**
 * Sends one outbox message: the Markdown rendered to HTML chunks, its files uploaded natively (the
 * text as the first file's caption when it is one chunk of at most 1,024 characters, otherwise as
 * messages before the files), its buttons under the last part. Only the first part replies to the
 * user's message. Parts Telegram already took are skipped when the outbox retries the same key.
 */
export function createTelegramReplySender(options: {
  api: Api;
  token: string;
  onFallback: ReplyFallbackListener;
}) {
  const { api, token, onFallback } = options;
  const progress = createReplyProgress();

  const sendPart = (part: ReplyPart, target: ChannelTarget, replyMarkup?: InlineKeyboardMarkup) => {
    const format = replyMarkup ? { replyMarkup } : {};
    if ("html" in part) return sendHtmlChunk(api, token, target, part.html, onFallback, format);
    const { file, caption } = part;
    if (!caption) return sendTelegramFile(api, token, target, file, format);
    return withPlainTextFallback(
      caption,
      (text, parseMode) =>
        sendTelegramFile(api, token, target, file, { ...format, ...parseMode, caption: text }),
      (reason) => onFallback({ reason, chatId: target.chatId }),
    );
  };

  return async (
    target: ChannelTarget,
    message: ChannelMessage,
    sendOptions: ChannelSendOptions,
  ): Promise<ChannelSendResult> => {
    const parts = replyParts(message);
    const keyboard = message.actions?.length ? telegramKeyboard(message.actions) : undefined;
    const key = sendOptions.idempotencyKey;
    let { done, messageId } = progress.get(key);
    for (const [index, part] of parts.entries()) {
      if (index < done) continue;
      const partTarget = index === 0 ? target : { ...target, replyToMessageId: undefined };
      const result = await sendPart(part, partTarget, index === parts.length - 1 ? keyboard : undefined);
      done = index + 1;
      messageId = result.messageId;
      progress.set(key, { done, ...(messageId !== undefined ? { messageId } : {}) });
    }
    progress.finish(key);
    return messageId !== undefined ? { messageId } : {};
  };
}

/** Splits a message into what Telegram takes one at a time (see `createTelegramReplySender`). */
export function replyParts(message: ChannelMessage): ReplyPart[] {
  // The Markdown is rendered first and the HTML chunked after, so no chunk splits a tag or a fence.
  const chunks = renderTelegramChunks(message.text, telegramTextLimit);
  const files = message.attachments ?? [];
  if (files.length === 0)
    // Nothing visible (an empty text): Telegram refuses it as it would have before.
    return (chunks.length > 0 ? chunks : [escapeHtml(message.text)]).map((html) => ({ html }));
  const [first, ...rest] = files as [ChannelMessageFile, ...ChannelMessageFile[]];
  const only = chunks.length === 1 ? (chunks[0] as string) : undefined;
  if (only !== undefined && telegramHtmlToText(only).length <= telegramCaptionLimit)
    return [{ file: first, caption: only }, ...rest.map((file) => ({ file }))];
  return [...chunks.map((html) => ({ html })), ...files.map((file) => ({ file }))];
}
