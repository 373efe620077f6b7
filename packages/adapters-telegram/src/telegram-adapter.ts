import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { RetryBackoffOptions } from "@downcity/core";
import {
  attachmentKinds,
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
  errorFromZod,
  type Logger,
} from "@downcity/core";
import { Api } from "grammy";
import { answerTelegramAction } from "./answer-telegram-action.js";
import type { TelegramBotIdentity } from "./map-telegram-update.js";
import { startPollingReceiver, type TelegramReceiver } from "./polling-receiver.js";
import { createTelegramReplySender } from "./send-telegram-reply.js";
import { setTelegramCommandMenu } from "./telegram-command-menu.js";
import { createTelegramEditing } from "./telegram-editing.js";
import { createTelegramFileDownload } from "./telegram-file-download.js";
import { parseListen, type TelegramOptions, telegramOptionsSchema } from "./telegram-options.js";
import { createTelegramTyping } from "./telegram-typing.js";
import { createTelegramWebhookService } from "./telegram-webhook-service.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

/**
 * What Telegram can hold: 4096 characters (UTF-16 units) a message, forum topics, no send idempotency key.
 * Replies are Markdown rendered to Telegram HTML by the adapter itself; photos, files, voice notes,
 * stickers, locations and contacts come in, files go out natively, and buttons are inline keyboards.
 */
export const telegramCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 4096,
  threads: true,
  markdown: "telegram-html",
  idempotentSends: false,
  // The adapter renders the Markdown and chunks the HTML, so the host hands it replies whole.
  format: "telegram-html",
  // Telegram delivers every kind of attachment there is.
  attachmentsIn: Object.freeze([...attachmentKinds]),
  attachmentsOut: true,
  actions: true,
});

/** Options of `createTelegramAdapter` beyond the channel's config. */
export interface TelegramAdapterSettings {
  /** Delays between reconnection attempts [1 s doubling to 30 s]. */
  backoff?: RetryBackoffOptions;
}

/** A Telegram channel adapter, which also tells which bot it is once getMe answered. */
export interface TelegramAdapter extends ChannelAdapter {
  /** The bot's id and username, once known. */
  bot(): TelegramBotIdentity | undefined;
  /** The bound webhook port in webhook mode (after `start`). */
  webhookPort(): number | undefined;
}

/** Creates a Telegram adapter on grammY's Bot API client: durable long polling or a webhook server. */
export function createTelegramAdapter(
  input: TelegramOptions | Record<string, unknown>,
  settings: TelegramAdapterSettings = {},
): TelegramAdapter {
  const parsed = telegramOptionsSchema.safeParse(input);
  if (!parsed.success)
    throw errorFromZod(parsed.error, { what: "Telegram channel options", code: "CONFIG_INVALID" });
  const options = parsed.data;
  const backoff = settings.backoff ?? { initialMs: 1000, maxMs: 30_000 };
  // Our own keep-alive agent (grammY's default one is shared and never closed), destroyed on stop.
  const agent = options.apiRoot.startsWith("https:")
    ? new HttpsAgent({ keepAlive: true })
    : new HttpAgent({ keepAlive: true });
  const client = {
    apiRoot: options.apiRoot,
    baseFetchConfig: { agent, compress: true },
    // grammY leaves the URL (and so the token) out of its errors unless this is true.
    sensitiveLogs: false,
    // A half-open connection must not freeze the poll: give up a while after the long poll would end.
    timeoutSeconds: options.pollTimeoutSeconds + 30,
  };
  const api = new Api(options.token, client);
  const download = createTelegramFileDownload({ api, token: options.token, apiRoot: options.apiRoot });
  const sendReply = createTelegramReplySender({
    api,
    token: options.token,
    onFallback: ({ reason, chatId }) =>
      logger?.warn({ chatId, reason }, "telegram refused the reply's HTML; sent it as plain text"),
  });
  let identity: TelegramBotIdentity | undefined;
  let receiver: Promise<TelegramReceiver & { port?: number }> | undefined;
  let port: number | undefined;
  let stopping: Promise<void> | undefined;
  let logger: Logger | undefined;

  const stop = async () => {
    if (!receiver) return;
    stopping ??= receiver
      .then(
        (running) => running.stop(),
        () => undefined,
      )
      .finally(() => {
        agent.destroy();
        receiver = undefined;
        stopping = undefined;
      });
    await stopping;
  };

  return {
    // Polling and gateway modes pull events: with a shared store one worker at a time runs them.
    capabilities:
      options.mode === "webhook" ? telegramCapabilities : { ...telegramCapabilities, polls: true },
    bot: () => identity,
    webhookPort: () => port,
    typing: createTelegramTyping(api),
    editing: createTelegramEditing(api, options.token),
    answerAction: (event, text) => answerTelegramAction(api, options.token, event.action?.callbackId, text),
    async start(context: ChannelContext) {
      if (receiver) {
        await receiver;
        return;
      }
      logger = context.logger;
      // The command menu is a convenience: a failure is only logged.
      setTelegramCommandMenu(api, context.commands).catch((error: unknown) =>
        context.logger.warn({ error: String(error) }, "could not set the bot's command menu"),
      );
      const onIdentity = (bot: TelegramBotIdentity) => {
        identity = bot;
      };
      context.signal.addEventListener("abort", () => void stop(), { once: true });
      if (options.mode === "webhook") {
        const listen = parseListen(options.listen ?? 0);
        receiver = startWebhookReceiver({
          api,
          token: options.token,
          client,
          context,
          host: listen.host,
          port: listen.port,
          path: options.path,
          secretToken: options.secretToken ?? "",
          backoff,
          onIdentity,
          download,
        });
        try {
          port = (await receiver).port;
        } catch (error) {
          receiver = undefined;
          throw error;
        }
        return;
      }
      receiver = Promise.resolve(
        startPollingReceiver({
          api,
          token: options.token,
          context,
          pollTimeoutSeconds: options.pollTimeoutSeconds,
          backoff,
          onIdentity,
          download,
        }),
      );
    },
    stop,
    send: sendReply,
  };
}

const definition = {
  name: "telegram",
  options: telegramOptionsSchema,
  create: (options: TelegramOptions) => createTelegramAdapter(options),
  /** The instance's service (`downcity <name> set-webhook <url>`), for hosts that register adapter services. */
  services: (options: TelegramOptions, context: { channel: string }) => [
    createTelegramWebhookService(context.channel, options),
  ],
};

/** The Telegram channel adapter kind: `"adapter": "@downcity/adapters-telegram"` in downcity.json. */
export const telegramChannelAdapter = defineChannelAdapter(definition);
