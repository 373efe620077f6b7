import { z } from "zod";

/** The options of one Telegram channel instance (`channels.<name>` in downcity.json, minus adapter and access). */
export const telegramOptionsSchema = z
  .object({
    token: z
      .string()
      .regex(/^\d+:[\w-]+$/, "expected a bot token from @BotFather, like 123456:ABC-DEF...")
      .describe("The bot token from @BotFather; write it as ${TELEGRAM_BOT_TOKEN} and keep it in .env"),
    apiRoot: z
      .url()
      .default("https://api.telegram.org")
      // grammY builds `${apiRoot}/bot<token>/<method>`: a trailing slash would double it.
      .transform((url) => url.replace(/\/+$/, ""))
      .describe("Root URL of the Bot API server (a local Bot API server, or a fake one in tests)"),
    mode: z
      .enum(["polling", "webhook"])
      .default("polling")
      .describe(
        "polling: long-poll getUpdates; webhook: listen for Telegram's POSTs (see downcity tg set-webhook)",
      ),
    pollTimeoutSeconds: z
      .number()
      .int()
      // 0 (short polling) would spin against Telegram while nothing happens.
      .min(1)
      .max(50)
      .default(30)
      .describe("How long one getUpdates call waits for updates (polling mode)"),
    listen: z
      .union([
        z.number().int().min(0).max(65535),
        z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/, "expected host:port, like 127.0.0.1:8443"),
      ])
      .optional()
      .describe("Webhook mode: where to listen, as a port (on 127.0.0.1) or host:port"),
    path: z
      .string()
      .regex(/^\/[\w\-./~]*$/, "expected a URL path starting with /")
      .default("/telegram")
      .describe("Webhook mode: the URL path Telegram posts updates to"),
    secretToken: z
      .string()
      .regex(/^[\w-]{1,256}$/, "expected 1-256 characters of A-Z, a-z, 0-9, _ and -")
      .optional()
      .describe("Webhook mode: the secret Telegram sends in X-Telegram-Bot-Api-Secret-Token"),
  })
  .superRefine((options, context) => {
    if (options.mode !== "webhook") return;
    if (options.listen === undefined)
      context.addIssue({
        code: "custom",
        path: ["listen"],
        message: 'webhook mode needs "listen" (a port or host:port for the webhook server)',
      });
    if (options.secretToken === undefined)
      context.addIssue({
        code: "custom",
        path: ["secretToken"],
        message:
          'webhook mode needs "secretToken" so forged POSTs are rejected; pass the same value to set-webhook',
      });
  });

/** Validated Telegram channel options. */
export type TelegramOptions = z.output<typeof telegramOptionsSchema>;

/** Splits `listen` into a host and a port (a bare port listens on loopback). */
export function parseListen(listen: number | string): { host: string; port: number } {
  if (typeof listen === "number") return { host: "127.0.0.1", port: listen };
  const colon = listen.lastIndexOf(":");
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  return { host, port: Number(listen.slice(colon + 1)) };
}
