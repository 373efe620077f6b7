import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
  type Logger,
  silentLogger,
} from "@downcity/core";
import { Client, DefaultCache, LoggerLevel } from "@larksuiteoapi/node-sdk";
import { type FeishuOptions, feishuOptionsSchema } from "./feishu-options.js";
import { sendFeishuText } from "./feishu-sender.js";
import { createFetchHttpInstance } from "./fetch-http-instance.js";
import { createMessageHandler } from "./message-handler.js";
import { createSdkLogger } from "./sdk-logger.js";
import { startWebhookReceiver } from "./webhook-receiver.js";
import { type FeishuReceiver, startWebsocketReceiver } from "./websocket-receiver.js";

/** What Lark holds: long text messages, threads (reply_in_thread), and sends deduplicated by `uuid`. */
export const feishuCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 8000,
  threads: true,
  markdown: "none",
  idempotentSends: true,
});

/** A Feishu/Lark channel adapter, which also tells its bot's open_id and its webhook port once known. */
export interface FeishuAdapter extends ChannelAdapter {
  /** The bot's open_id (asked from `bot/v3/info`). */
  botOpenId(): Promise<string>;
  /** The bound port in webhook mode (after `start`). */
  webhookPort(): number | undefined;
}

/** Creates a Feishu/Lark adapter on `@larksuiteoapi/node-sdk`: the long connection or a webhook server, sends with `uuid`. */
export function createFeishuAdapter(
  input: FeishuOptions | Record<string, unknown>,
  settings: { logger?: Logger } = {},
): FeishuAdapter {
  const options = feishuOptionsSchema.parse(input);
  const secrets = [options.appSecret, options.encryptKey, options.verificationToken].filter(
    (secret): secret is string => secret !== undefined,
  );
  const httpInstance = createFetchHttpInstance();
  let tokenCache = new DefaultCache();
  // The client reads its cache through this indirection, so a stale token can be dropped by swapping the cache.
  const cache = {
    get: (...args: Parameters<DefaultCache["get"]>) => tokenCache.get(...args),
    set: (...args: Parameters<DefaultCache["set"]>) => tokenCache.set(...args),
  };
  const makeClient = (logger: Logger) =>
    new Client({
      appId: options.appId,
      appSecret: options.appSecret,
      domain: options.domain,
      httpInstance,
      cache,
      logger: createSdkLogger(logger, "lark", secrets),
      loggerLevel: LoggerLevel.warn,
    });
  let client = makeClient(settings.logger ?? silentLogger);
  let botOpenId: Promise<string> | undefined;
  let receiver: Promise<FeishuReceiver & { port?: number }> | undefined;
  let port: number | undefined;
  let stopping: Promise<void> | undefined;

  const askBotOpenId = () => {
    botOpenId ??= client
      .request<{ code?: number; msg?: string; bot?: { open_id?: string } }>({
        url: "/open-apis/bot/v3/info",
        method: "GET",
      })
      .then((answer) => {
        const id = answer.bot?.open_id;
        if (answer.code !== 0 || !id)
          throw new Error(`Lark bot info answered code ${answer.code}: ${answer.msg ?? ""}`);
        return id;
      })
      .catch((error: unknown) => {
        // Not cached: the next mention asks again (a token outage must not poison the identity for good).
        botOpenId = undefined;
        throw error;
      });
    return botOpenId;
  };

  const stop = async () => {
    if (!receiver) return;
    stopping ??= receiver
      .then(
        (running) => running.stop(),
        () => undefined,
      )
      .finally(() => {
        receiver = undefined;
        stopping = undefined;
      });
    await stopping;
  };

  return {
    // Polling and gateway modes pull events: with a shared store one worker at a time runs them.
    capabilities: options.mode === "webhook" ? feishuCapabilities : { ...feishuCapabilities, polls: true },
    botOpenId: askBotOpenId,
    webhookPort: () => port,
    async start(context: ChannelContext) {
      if (receiver) return;
      client = makeClient(context.logger);
      const sdkLogger = createSdkLogger(context.logger, context.channel, secrets);
      const handler = createMessageHandler(context, askBotOpenId);
      receiver =
        options.mode === "webhook"
          ? startWebhookReceiver({ options, context, handler, sdkLogger }).then((running) => {
              port = running.port;
              return running;
            })
          : startWebsocketReceiver({ options, context, handler, httpInstance, sdkLogger });
      context.signal.addEventListener("abort", () => void stop(), { once: true });
      // Warm the identity so the first group mention needs no extra round trip; a failure is retried on use.
      askBotOpenId().catch(() => {});
      try {
        await receiver;
      } catch (error) {
        receiver = undefined;
        throw error;
      }
    },
    stop,
    send: (target, message, sendOptions) =>
      sendFeishuText(
        {
          client,
          resetToken: () => {
            tokenCache = new DefaultCache();
          },
        },
        target,
        message.text,
        sendOptions.idempotencyKey,
      ),
  };
}

/** The Feishu/Lark channel kind that downcity.json names as `"adapter": "@downcity/adapters-feishu"`. */
export const feishuChannelAdapter = defineChannelAdapter({
  name: "feishu",
  options: feishuOptionsSchema,
  create: (options, { logger }) => createFeishuAdapter(options, { logger }),
});
