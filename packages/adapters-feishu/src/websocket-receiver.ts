import type { ChannelContext } from "@downcity/core";
import {
  EventDispatcher,
  type HttpInstance,
  type Logger as LarkLogger,
  LoggerLevel,
  WSClient,
} from "@larksuiteoapi/node-sdk";
import type { FeishuOptions } from "./feishu-options.js";
import type { MessageHandler } from "./message-handler.js";

/** A running receiver of either mode. */
export interface FeishuReceiver {
  stop(): Promise<void>;
}

/** What the long-connection receiver needs. */
export interface WebsocketReceiverOptions {
  options: FeishuOptions;
  context: ChannelContext;
  handler: MessageHandler;
  httpInstance: HttpInstance;
  sdkLogger: LarkLogger;
  /** How long `start` waits for the first connection before reporting `retrying` and returning [5 s]. */
  firstConnectTimeoutMs?: number;
}

/**
 * Receives events over the SDK's WSClient long connection. The SDK reconnects after a drop and, with
 * `pingTimeout`, after a ping nobody answered (half-open socket); when it gives up for good (endpoint discovery
 * refused, which it never retries) this receiver starts a fresh client after `restartDelayMs`, so the channel
 * never sits on a dead connection.
 */
export async function startWebsocketReceiver(settings: WebsocketReceiverOptions): Promise<FeishuReceiver> {
  const { options, context, handler } = settings;
  const dispatcher = new EventDispatcher({
    logger: settings.sdkLogger,
    loggerLevel: LoggerLevel.warn,
  }).register({
    "im.message.receive_v1": (data: unknown) => handler.handle(data),
    "card.action.trigger": (data: unknown) => handler.handleCardAction(data),
  });
  let client: WSClient | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopped = false;
  let firstOutcome: (() => void) | undefined;

  const launch = () => {
    if (stopped) return;
    const current: WSClient = new WSClient({
      appId: options.appId,
      appSecret: options.appSecret,
      domain: options.domain,
      httpInstance: settings.httpInstance,
      logger: settings.sdkLogger,
      loggerLevel: LoggerLevel.warn,
      handshakeTimeoutMs: 15_000,
      wsConfig: { pingTimeout: options.pingTimeoutSeconds },
      onReady: () => {
        context.setState("connected");
        firstOutcome?.();
      },
      onReconnecting: () => context.setState("retrying", "Lark long connection lost; reconnecting"),
      onReconnected: () => context.setState("connected"),
      onError: (error: Error) => {
        if (stopped || client !== current) return;
        context.setState("retrying", `Lark long connection failed (${error.message}); retrying`);
        context.logger.warn(
          { channel: context.channel, err: { message: error.message } },
          "Lark long connection failed; restarting it",
        );
        firstOutcome?.();
        current.close({ force: true });
        restartTimer = setTimeout(launch, options.restartDelayMs);
      },
    });
    client = current;
    void current.start({ eventDispatcher: dispatcher });
  };

  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      context.setState("retrying", "Lark long connection not established yet");
      resolve();
    }, settings.firstConnectTimeoutMs ?? 5000);
    firstOutcome = () => {
      clearTimeout(timer);
      firstOutcome = undefined;
      resolve();
    };
    launch();
  });

  return {
    async stop() {
      stopped = true;
      firstOutcome?.();
      if (restartTimer) clearTimeout(restartTimer);
      client?.close({ force: true });
      await handler.drain();
    },
  };
}
