import type { ChannelContext } from "@downcity/core";
import { TOPIC_ROBOT } from "dingtalk-stream";
import { DingtalkApiError } from "./dingtalk-api-error.js";
import { DowncityStreamClient, type RobotFrame } from "./dingtalk-stream-client.js";

/** What the stream supervisor needs. */
export interface DingtalkStreamOptions {
  clientId: string;
  clientSecret: string;
  gatewayUrl: string;
  reconnectDelayMs: number;
  keepAliveMs: number;
  context: ChannelContext;
  /** Takes one robot message (the frame's `data`) into the inbox; a throw means it was not durably accepted. */
  onMessage(data: string): Promise<void>;
}

/** A running stream connection. */
export interface DingtalkStream {
  stop(): Promise<void>;
}

const maxReconnectDelayMs = 60_000;

/**
 * Holds the Stream mode connection through the official SDK: opens it at the gateway, reconnects with
 * exponential backoff (the first wait `reconnectDelayMs`, doubling to 60 s, reset once connected), and
 * stops with a `failed` state when the gateway refuses the credentials. Robot messages are taken one at a
 * time in arrival order and acknowledged (the SDK's callback response) only after `onMessage` resolved; an
 * event that was not accepted is left unacknowledged, so DingTalk delivers it again.
 */
export async function startDingtalkStream(options: DingtalkStreamOptions): Promise<DingtalkStream> {
  const { context } = options;
  const log = { channel: context.channel };
  const client = new DowncityStreamClient({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    gatewayUrl: options.gatewayUrl,
    keepAliveMs: options.keepAliveMs,
    onBadFrame: (error) =>
      context.logger.warn(
        { ...log, err: { message: error.message } },
        "DingTalk stream: an unreadable frame",
      ),
    // The socket's close (below) schedules the reconnect; messages not yet acknowledged are redelivered.
    onDisconnectNotice: () => client.currentSocket()?.close(),
  });
  let stopped = false;
  let attempts = 0;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
  let firstOutcome: (() => void) | undefined;

  const take = async (frame: RobotFrame) => {
    const messageId = frame.headers?.messageId;
    try {
      await options.onMessage(frame.data);
    } catch (error) {
      context.logger.error(
        { ...log, err: { message: (error as Error).message } },
        "DingTalk message not accepted; left unacknowledged so DingTalk delivers it again",
      );
      return;
    }
    if (messageId) client.socketCallBackResponse(messageId, { status: "SUCCESS" });
  };
  client.registerCallbackListener(TOPIC_ROBOT, (frame: RobotFrame) => {
    queue = queue.then(() => take(frame));
  });

  const fail = (message: string) => {
    stopped = true;
    context.setState("failed", message);
    context.logger.error(log, `DingTalk stream stopped: ${message}`);
    firstOutcome?.();
  };
  const scheduleReconnect = (reason: string) => {
    if (stopped) return;
    const delay = Math.min(maxReconnectDelayMs, options.reconnectDelayMs * 2 ** attempts);
    attempts += 1;
    context.setState("retrying", reason);
    context.logger.warn({ ...log, delayMs: delay }, `DingTalk stream: ${reason}; reconnecting`);
    firstOutcome?.();
    reconnectTimer = setTimeout(() => void connect(), delay);
  };

  const connect = async () => {
    reconnectTimer = undefined;
    if (stopped) return;
    try {
      await client.getEndpoint();
    } catch (error) {
      if (DingtalkApiError.isInstance(error) && error.credentialsRejected)
        return fail(
          `DingTalk refused the app's credentials (${error.message}): check clientId and clientSecret on open-dev.dingtalk.com`,
        );
      return scheduleReconnect(`opening a stream connection failed: ${(error as Error).message}`);
    }
    if (stopped) return;
    try {
      await client._connect();
    } catch (error) {
      client.clearKeepAlive();
      return scheduleReconnect(`the stream socket failed: ${(error as Error).message}`);
    }
    const socket = client.currentSocket();
    if (!socket) return;
    if (stopped) {
      // Stopped while the socket opened: it must not outlive the adapter.
      client.clearKeepAlive();
      socket.terminate();
      return;
    }
    socket.once("close", (code: number) => {
      client.clearKeepAlive();
      if (!stopped) scheduleReconnect(`the stream closed (${code})`);
    });
    attempts = 0;
    context.setState("connected");
    firstOutcome?.();
  };

  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      context.setState("retrying", "DingTalk stream not connected yet");
      resolve();
    }, 5000);
    firstOutcome = () => {
      clearTimeout(timer);
      firstOutcome = undefined;
      resolve();
    };
    void connect();
  });

  return {
    async stop() {
      stopped = true;
      firstOutcome?.();
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const socket = client.currentSocket();
      if (socket && socket.readyState !== socket.CLOSED) {
        const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
        client.disconnect();
        const timer = setTimeout(() => socket.terminate(), 2000);
        await closed;
        clearTimeout(timer);
      }
      client.clearKeepAlive();
      await queue;
    },
  };
}
