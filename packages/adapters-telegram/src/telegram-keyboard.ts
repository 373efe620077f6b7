import { type ChannelAction, ChannelSendError } from "@downcity/core";
import type { InlineKeyboardMarkup } from "grammy/types";

/** Telegram's limit on a button's callback_data, in bytes. */
const callbackDataMaxBytes = 64;

/**
 * The inline keyboard for a message's buttons: each button's callback_data is the action id, so a
 * press comes back as that id. Up to three short labels share a row; longer ones get a row each.
 */
export function telegramKeyboard(actions: readonly ChannelAction[]): InlineKeyboardMarkup {
  for (const action of actions)
    if (Buffer.byteLength(action.id, "utf8") > callbackDataMaxBytes)
      throw new ChannelSendError(
        `button "${action.label}" has an action id of more than ${callbackDataMaxBytes} bytes (Telegram's callback_data limit); use a shorter id`,
        { permanent: true },
      );
  const buttons = actions.map((action) => ({ text: action.label, callback_data: action.id }));
  const oneRow = buttons.length <= 3 && buttons.every((button) => button.text.length <= 16);
  return { inline_keyboard: oneRow ? [buttons] : buttons.map((button) => [button]) };
}

/** The markup that removes a message's buttons. */
export const noTelegramKeyboard: InlineKeyboardMarkup = Object.freeze({ inline_keyboard: [] });
