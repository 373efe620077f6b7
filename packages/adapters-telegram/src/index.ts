/**
 * The complete public surface of @downcity/adapters-telegram: the Telegram channel adapter (its default
 * export is the adapter kind downcity.json names), the pieces it is built from, and the webhook setup.
 */
import { telegramChannelAdapter } from "./telegram-adapter.js";

export type { TelegramFileDownload } from "./map-telegram-attachments.js";
export { type MappedUpdate, mapTelegramUpdate, type TelegramBotIdentity } from "./map-telegram-update.js";
export { redactToken } from "./redact-token.js";
export {
  deleteTelegramWebhook,
  setTelegramWebhook,
  type TelegramWebhookRequest,
} from "./set-telegram-webhook.js";
export {
  createTelegramAdapter,
  type TelegramAdapter,
  type TelegramAdapterSettings,
  telegramCapabilities,
  telegramChannelAdapter,
} from "./telegram-adapter.js";
export { type TelegramOptions, telegramOptionsSchema } from "./telegram-options.js";
export { createTelegramWebhookService } from "./telegram-webhook-service.js";

export default telegramChannelAdapter;
