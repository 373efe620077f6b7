import {
  type ChannelEditing,
  type ChannelMessage,
  type ChannelTarget,
  renderTelegramChunks,
} from "@downcity/core";
import type { Api } from "grammy";
import { withPlainTextFallback } from "./send-html-chunk.js";
import { telegramId, toChannelSendError } from "./send-telegram-message.js";
import { noTelegramKeyboard, telegramKeyboard } from "./telegram-keyboard.js";

// Telegram's answers that mean the wanted state is already there.
const notModified = /message is not modified/i;
const alreadyGone = /message to delete not found/i;

/**
 * Edits and deletes the bot's messages: `editMessageText` (HTML, with the plain-text fallback; new
 * buttons with it), `editMessageReplyMarkup` to remove the buttons when `actions` is empty, and
 * `deleteMessage`. "message is not modified" and an already deleted message count as success.
 */
export function createTelegramEditing(api: Api, token: string): ChannelEditing {
  const call = async (work: () => Promise<unknown>, success: RegExp) => {
    try {
      await work();
    } catch (error) {
      const failure = toChannelSendError(error, token);
      if (failure.status === 400 && success.test(failure.message)) return;
      throw failure;
    }
  };
  return {
    async edit(target: ChannelTarget, messageId: string, message: ChannelMessage) {
      const chatId = target.chatId;
      const id = telegramId(messageId) as number;
      // One message holds one chunk: a progress line or an approval request fits in it.
      const html = renderTelegramChunks(message.text, 4096)[0];
      const keyboard = message.actions?.length ? telegramKeyboard(message.actions) : undefined;
      if (html !== undefined)
        await withPlainTextFallback(html, (text, parseMode) =>
          call(
            () =>
              api.editMessageText(chatId, id, text, {
                ...(parseMode.parseMode ? { parse_mode: parseMode.parseMode } : {}),
                ...(keyboard ? { reply_markup: keyboard } : {}),
              }),
            notModified,
          ),
        );
      else if (keyboard)
        await call(() => api.editMessageReplyMarkup(chatId, id, { reply_markup: keyboard }), notModified);
      if (message.actions && message.actions.length === 0)
        await call(
          () => api.editMessageReplyMarkup(chatId, id, { reply_markup: noTelegramKeyboard }),
          notModified,
        );
    },
    async delete(target: ChannelTarget, messageId: string) {
      await call(() => api.deleteMessage(target.chatId, telegramId(messageId) as number), alreadyGone);
    },
  };
}
