import { DowncityError, errorFromZod } from "@downcity/core";
import { Api } from "grammy";
import { z } from "zod";
import { telegramAllowedUpdates } from "./telegram-allowed-updates.js";
import { describeTelegramError } from "./telegram-error.js";

const webhookRequestSchema = z.object({
  token: z.string().regex(/^\d+:[\w-]+$/, "expected a bot token from @BotFather"),
  apiRoot: z
    .url()
    .default("https://api.telegram.org")
    .transform((url) => url.replace(/\/+$/, "")),
  url: z
    .url()
    .describe("The public HTTPS URL Telegram posts updates to (it reaches the webhook's listen/path)"),
  secretToken: z.string().regex(/^[\w-]{1,256}$/, "expected 1-256 characters of A-Z, a-z, 0-9, _ and -"),
  dropPendingUpdates: z.boolean().default(false),
  maxConnections: z
    .number()
    .int()
    .min(1)
    .max(100)
    .default(1)
    .describe("Concurrent webhook requests Telegram may make; 1 delivers one update at a time, in order"),
});

/** Input of `setTelegramWebhook`: the channel's token, apiRoot and secretToken plus the public URL. */
export type TelegramWebhookRequest = z.input<typeof webhookRequestSchema>;

/**
 * Registers the webhook URL with Telegram (what `downcity tg set-webhook <url>` does): Telegram then
 * posts each update there with the secret header. Webhook mode never calls this by itself.
 */
export async function setTelegramWebhook(input: TelegramWebhookRequest): Promise<void> {
  const parsed = webhookRequestSchema.safeParse(input);
  if (!parsed.success) throw errorFromZod(parsed.error, { what: "set-webhook input" });
  const request = parsed.data;
  const api = new Api(request.token, { apiRoot: request.apiRoot, sensitiveLogs: false });
  try {
    await api.setWebhook(request.url, {
      secret_token: request.secretToken,
      allowed_updates: telegramAllowedUpdates,
      drop_pending_updates: request.dropPendingUpdates,
      // Telegram posts updates in parallel up to this many: one keeps each chat's messages in order.
      max_connections: request.maxConnections,
    });
  } catch (error) {
    throw new DowncityError(
      "SERVICE_ERROR",
      `Could not set the webhook: ${describeTelegramError(error, request.token).message}`,
      {
        field: "url",
      },
    );
  }
}

/** Removes the bot's webhook so polling mode can receive updates again (pending updates are kept). */
export async function deleteTelegramWebhook(input: { token: string; apiRoot?: string }): Promise<void> {
  const apiRoot = (input.apiRoot ?? "https://api.telegram.org").replace(/\/+$/, "");
  const api = new Api(input.token, { apiRoot, sensitiveLogs: false });
  try {
    await api.deleteWebhook({ drop_pending_updates: false });
  } catch (error) {
    throw new DowncityError(
      "SERVICE_ERROR",
      `Could not delete the webhook: ${describeTelegramError(error, input.token).message}`,
    );
  }
}
