import { DowncityError, defineService, type ServiceDefinition } from "@downcity/core";
import { Api } from "grammy";
import { z } from "zod";
import { deleteTelegramWebhook, setTelegramWebhook } from "./set-telegram-webhook.js";
import { describeTelegramError } from "./telegram-error.js";
import type { TelegramOptions } from "./telegram-options.js";

/**
 * The service of one Telegram channel instance, named after it: `downcity <name> set-webhook <url>`,
 * `delete-webhook` and `webhook-info`, using the instance's token, apiRoot and secretToken.
 */
export function createTelegramWebhookService(name: string, options: TelegramOptions): ServiceDefinition {
  return defineService({
    name,
    description: `Telegram webhook of channel ${name}`,
    actions: {
      "set-webhook": {
        description: "Register the public HTTPS URL Telegram posts updates to (webhook mode)",
        input: z.object({
          url: z.url().describe("Public HTTPS URL that reaches this channel's listen address and path"),
          dropPendingUpdates: z.boolean().default(false).describe("Discard updates Telegram holds"),
        }),
        handler: async ({ url, dropPendingUpdates }) => {
          if (!options.secretToken)
            throw new DowncityError(
              "CONFIG_INVALID",
              `channels.${name}.secretToken is not set: add one (and "mode": "webhook") so forged POSTs are rejected.`,
              { field: `channels.${name}.secretToken` },
            );
          await setTelegramWebhook({
            token: options.token,
            apiRoot: options.apiRoot,
            url,
            secretToken: options.secretToken,
            dropPendingUpdates,
          });
          return { url, mode: options.mode };
        },
      },
      "delete-webhook": {
        description: "Remove the webhook (polling mode does this by itself when it starts)",
        input: z.object({}),
        handler: async () => {
          await deleteTelegramWebhook({ token: options.token, apiRoot: options.apiRoot });
          return { deleted: true };
        },
      },
      "webhook-info": {
        description: "What Telegram knows of the webhook: URL, pending updates, last error",
        input: z.object({}),
        handler: async () => {
          const api = new Api(options.token, { apiRoot: options.apiRoot, sensitiveLogs: false });
          try {
            const info = await api.getWebhookInfo();
            return {
              url: info.url,
              pendingUpdateCount: info.pending_update_count,
              ...(info.last_error_message ? { lastErrorMessage: info.last_error_message } : {}),
            };
          } catch (error) {
            throw new DowncityError(
              "SERVICE_ERROR",
              `Could not read the webhook: ${describeTelegramError(error, options.token).message}`,
            );
          }
        },
      },
    },
  });
}
