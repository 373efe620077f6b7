import type { ChannelContext } from "@downcity/core";
import { WSAuthFailureError, WSClient, type WsFrame } from "@wecom/aibot-node-sdk";
import type { WecomOptions } from "./wecom-options.js";
import { sdkLogger } from "./wecom-sdk-logger.js";

/** The running long connection: the SDK client replies and sends go through, and its shutdown. */
export interface WecomConnection {
  readonly client: WSClient;
  /** Drops the connection and reconnects after a back-off, so WeCom pushes again what was not answered. */
  reconnect(reason: string): void;
  stop(): Promise<void>;
}

/** What the connection hands message callbacks to. */
export interface WecomConnectionOptions {
  options: WecomOptions;
  context: ChannelContext;
  onMessage(frame: WsFrame): void;
}

/**
 * Opens the SDK's long connection (subscribe with bot id and secret, heartbeats, reconnects with
 * exponential back-off capped at 30 s, forever) and reports its state. Resolves once WeCom accepted
 * the subscription; rejects when it refused the credentials before ever accepting them.
 */
export function openWecomConnection(settings: WecomConnectionOptions): Promise<WecomConnection> {
  const { options, context } = settings;
  const client = new WSClient({
    botId: options.botId,
    secret: options.secret,
    wsUrl: options.wsUrl,
    reconnectInterval: options.reconnectDelayMs,
    maxReconnectAttempts: -1,
    maxAuthFailureAttempts: 3,
    heartbeatInterval: options.heartbeatMs,
    logger: sdkLogger(context.logger, context.channel, [options.secret]),
  });
  let stopped = false;
  let everAuthenticated = false;
  let timer: NodeJS.Timeout | undefined;
  let failures = 0;

  const connection: WecomConnection = {
    client,
    reconnect(reason) {
      if (stopped || timer) return;
      context.setState("retrying", reason);
      client.disconnect();
      const delay = Math.min(options.reconnectDelayMs * 2 ** failures, 30_000);
      failures += 1;
      timer = setTimeout(() => {
        timer = undefined;
        if (!stopped) client.connect();
      }, delay);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      client.removeAllListeners();
      client.disconnect();
    },
  };

  client.on("message", (frame) => settings.onMessage(frame));
  // Set once WeCom closed this connection for another one: the SDK then stops, and so does the state.
  let replaced = false;
  const closed = (reason: string) => {
    if (!stopped && !replaced)
      context.setState("retrying", `the connection closed (${reason}); reconnecting`);
  };
  client.on("event.disconnected_event", () => {
    replaced = true;
    context.setState(
      "failed",
      "WeCom closed this connection because another one subscribed with the same bot id (another daemon or tool uses this bot); restart this channel once it is gone",
    );
  });

  return new Promise<WecomConnection>((resolve, reject) => {
    // A network failure before the first subscription leaves the SDK retrying: start does not wait for it.
    client.on("disconnected", (reason) => {
      closed(reason);
      resolve(connection);
    });
    client.on("authenticated", () => {
      everAuthenticated = true;
      failures = 0;
      context.setState("connected");
      resolve(connection);
    });
    client.on("error", (error: Error) => {
      if (stopped) return;
      const rejected = /Authentication failed/.test(error.message);
      if (rejected && !everAuthenticated) {
        void connection.stop();
        reject(
          new Error(
            `WeCom refused the bot id or secret (${error.message.replace(/^Authentication failed: /, "")}); check botId and secret of this channel in downcity.json and .env`,
          ),
        );
        return;
      }
      if (error instanceof WSAuthFailureError || error.name === "WSAuthFailureError")
        context.setState(
          "failed",
          "WeCom keeps refusing the bot id or secret; check botId and secret of this channel in downcity.json and .env, then restart",
        );
      else
        context.setState(
          "retrying",
          rejected ? `WeCom refused the subscription (${error.message})` : error.message,
        );
    });
    client.connect();
  });
}
