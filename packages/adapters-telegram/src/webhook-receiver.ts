import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelContext } from "@downcity/core";
import { createRetryBackoff, type RetryBackoffOptions } from "@downcity/core";
import { type Api, type ApiClientOptions, Bot, BotError, webhookCallback } from "grammy";
import type { UserFromGetMe } from "grammy/types";
import { acceptUpdate } from "./accept-update.js";
import type { TelegramFileDownload } from "./map-telegram-attachments.js";
import type { TelegramBotIdentity } from "./map-telegram-update.js";
import type { GrammySignal, TelegramReceiver } from "./polling-receiver.js";
import { describeTelegramError } from "./telegram-error.js";

/** What the webhook server needs. */
export interface WebhookReceiverOptions {
  api: Api;
  token: string;
  /** grammY client options (apiRoot, agent) for the webhook's Bot. */
  client: ApiClientOptions;
  context: ChannelContext;
  host: string;
  port: number;
  path: string;
  secretToken: string;
  backoff: RetryBackoffOptions;
  onIdentity(bot: TelegramBotIdentity): void;
  /** How incoming files are downloaded (the attachments' `fetch`). */
  download?: TelegramFileDownload;
}

/** A listening webhook receiver. */
export interface WebhookReceiver extends TelegramReceiver {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
}

const maxBodyBytes = 1024 * 1024;

/**
 * Serves Telegram's webhook POSTs through grammY's webhook handling: the secret header is checked before
 * the body is read, and the answer is 200 only once the inbox accepted the update (non-2xx otherwise,
 * so Telegram redelivers). Registering the URL with Telegram is `setTelegramWebhook`'s job, not this one's.
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const { context, token } = options;
  const log = { channel: context.channel };
  const abort = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let handle: ((request: IncomingMessage, response: ServerResponse) => Promise<unknown>) | undefined;

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== options.path) return void response.writeHead(404).end();
    if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
    // Until getMe answered, mentions cannot be recognised: ask Telegram to come back.
    if (!handle || abort.signal.aborted) return void response.writeHead(503).end();
    if (Number(request.headers["content-length"] ?? 0) > maxBodyBytes)
      return void response.writeHead(413).end();
    const work = handle(request, response)
      .then(() => {
        if (!response.headersSent) response.writeHead(200).end();
      })
      .catch((error: unknown) => {
        const failure = describeTelegramError(error instanceof BotError ? error.error : error, token);
        context.logger.error(
          { ...log },
          `telegram webhook update not accepted (answered 500): ${failure.message}`,
        );
        if (!response.headersSent) response.writeHead(500).end();
        else response.end();
      })
      .finally(() => inFlight.delete(work));
    inFlight.add(work);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  context.logger.info({ ...log, host: options.host, port, path: options.path }, "telegram webhook listening");

  const identify = async () => {
    const backoff = createRetryBackoff(options.backoff);
    while (!abort.signal.aborted) {
      try {
        const me: UserFromGetMe = await options.api.getMe(abort.signal as unknown as GrammySignal);
        const identity = { id: me.id, username: me.username };
        options.onIdentity(identity);
        const bot = new Bot(token, {
          botInfo: me,
          client: options.client,
        });
        bot.use(async (ctx) => {
          await acceptUpdate(ctx.update, identity, context, options.download);
        });
        handle = webhookCallback(bot, "http", {
          secretToken: options.secretToken,
          // Past this, Telegram gets a 500 and redelivers; the inbox dedupes the late accept.
          timeoutMilliseconds: 25_000,
        });
        context.setState("connected");
        return;
      } catch (error) {
        if (abort.signal.aborted) return;
        const failure = describeTelegramError(error, token);
        context.setState(
          failure.status === 401 || failure.status === 404 ? "failed" : "retrying",
          failure.message,
        );
        context.logger.warn({ ...log }, `telegram getMe failed: ${failure.message}`);
        await backoff.wait(abort.signal, failure.retryAfterMs);
      }
    }
  };
  const identifying = identify();

  return {
    port,
    async stop() {
      if (abort.signal.aborted) return;
      abort.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await identifying;
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await closed;
    },
  };
}
