import type { Logger } from "@downcity/core";
import { Client, DefaultCache, type HttpInstance, LoggerLevel } from "@larksuiteoapi/node-sdk";
import type { FeishuOptions } from "./feishu-options.js";
import type { FeishuSenderOptions } from "./feishu-sender.js";
import { createFetchHttpInstance } from "./fetch-http-instance.js";
import { createSdkLogger } from "./sdk-logger.js";

/** The adapter's SDK client, rebuilt with the channel's logger at start, and what it knows of its bot. */
export interface FeishuClient extends FeishuSenderOptions {
  readonly httpInstance: HttpInstance;
  /** The secrets no log line may carry. */
  readonly secrets: readonly string[];
  /** Rebuilds the client logging through `logger` (the channel's, once started). */
  useLogger(logger: Logger): void;
  /** The bot's open_id (asked from `bot/v3/info` once; a failure is asked again next time). */
  botOpenId(): Promise<string>;
  /** Whether a chat is a direct chat (`chat_mode: "p2p"`) or a group, asked from `im/v1/chats/:chat_id`. */
  chatType(chatId: string): Promise<"direct" | "group">;
}

/** Creates the SDK client on our fetch-based HTTP instance, with a token cache that can be dropped. */
export function createFeishuClient(options: FeishuOptions, logger: Logger): FeishuClient {
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
  const makeClient = (to: Logger) =>
    new Client({
      appId: options.appId,
      appSecret: options.appSecret,
      domain: options.domain,
      httpInstance,
      cache,
      logger: createSdkLogger(to, "lark", secrets),
      loggerLevel: LoggerLevel.warn,
    });
  let client = makeClient(logger);
  let botOpenId: Promise<string> | undefined;

  return {
    get client() {
      return client;
    },
    httpInstance,
    secrets,
    resetToken() {
      tokenCache = new DefaultCache();
    },
    useLogger(to) {
      client = makeClient(to);
    },
    botOpenId() {
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
    },
    async chatType(chatId) {
      const answer = await client.im.v1.chat.get({ path: { chat_id: chatId } });
      if (answer.code !== undefined && answer.code !== 0)
        throw new Error(`Lark chat info answered code ${answer.code}: ${answer.msg ?? ""}`);
      return answer.data?.chat_mode === "p2p" ? "direct" : "group";
    },
  };
}
