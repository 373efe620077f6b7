import { ChannelSendError } from "@downcity/core";
import type { Api } from "grammy";
import { toChannelSendError } from "./send-telegram-message.js";

/**
 * Answers a button press with a private toast (`answerCallbackQuery`; Telegram shows at most 200
 * characters). Telegram takes one answer per press, within about 15 seconds of it.
 */
export async function answerTelegramAction(
  api: Api,
  token: string,
  callbackId: string | undefined,
  text: string,
): Promise<void> {
  if (!callbackId)
    throw new ChannelSendError("the button press has no callback id to answer (action.callbackId)", {
      permanent: true,
    });
  try {
    // An empty answer only stops the button's spinner.
    await api.answerCallbackQuery(callbackId, text ? { text: text.slice(0, 200) } : {});
  } catch (error) {
    throw toChannelSendError(error, token);
  }
}
