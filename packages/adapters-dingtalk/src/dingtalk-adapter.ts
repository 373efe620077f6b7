import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
} from "@downcity/core";
import { type DingtalkOptions, dingtalkOptionsSchema, robotCodeOf } from "./dingtalk-options.js";
import { createDingtalkSender } from "./dingtalk-sender.js";
import { type DingtalkStream, startDingtalkStream } from "./dingtalk-stream.js";
import { createDingtalkTokenSource } from "./dingtalk-token-source.js";
import { dingtalkAttachmentKinds } from "./map-dingtalk-attachment.js";
import { mapDingtalkMessage } from "./map-dingtalk-message.js";

/**
 * What DingTalk holds: Markdown replies (sampleMarkdown, with a plain-text fallback), no threads, pictures,
 * voice notes (with DingTalk's transcript), videos and files in, pictures and files out. The robot APIs take
 * no idempotency key, so sends are not declared idempotent. The stream is pulled, so one worker holds it.
 */
export const dingtalkCapabilities: ChannelCapabilities = Object.freeze({
  // DingTalk documents no exact limit for robot texts; 4000 keeps a message well inside what it shows whole.
  maxTextLength: 4000,
  threads: false,
  markdown: "commonmark",
  idempotentSends: false,
  format: "markdown",
  attachmentsIn: dingtalkAttachmentKinds,
  attachmentsOut: true,
  polls: true,
});

function instanceCapabilities(options: DingtalkOptions): ChannelCapabilities {
  return options.markdown
    ? { ...dingtalkCapabilities }
    : { ...dingtalkCapabilities, markdown: "none", format: "plain" };
}

/**
 * Creates a DingTalk robot adapter: Stream mode in through the official `dingtalk-stream` SDK (no public URL),
 * acknowledged only after the inbox took the message; replies and files out through the robot OpenAPI.
 */
export function createDingtalkAdapter(input: DingtalkOptions | Record<string, unknown>): ChannelAdapter {
  const options = dingtalkOptionsSchema.parse(input);
  const tokens = createDingtalkTokenSource(options);
  const robot = { apiBase: options.apiBase, robotCode: robotCodeOf(options), tokens };
  const senderSettings = { ...robot, oapiBase: options.oapiBase, markdown: options.markdown };
  const send = createDingtalkSender(senderSettings);
  let running: Promise<DingtalkStream> | undefined;
  let stopping: Promise<void> | undefined;

  const stop = async () => {
    if (!running) return;
    stopping ??= running
      .then(
        (stream) => stream.stop(),
        () => undefined,
      )
      .finally(() => {
        running = undefined;
        stopping = undefined;
      });
    await stopping;
  };

  const startStream = (context: ChannelContext) => {
    Object.assign(senderSettings, { logger: context.logger, channel: context.channel });
    const download = { ...robot, timeoutMs: options.downloadTimeoutMs };
    return startDingtalkStream({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      gatewayUrl: `${options.apiBase}/v1.0/gateway/connections/open`,
      reconnectDelayMs: options.reconnectDelayMs,
      keepAliveMs: options.keepAliveMs,
      context,
      onMessage: async (data) => {
        let raw: unknown;
        try {
          raw = JSON.parse(data);
        } catch {
          context.logger.warn({ channel: context.channel }, "DingTalk robot message is not JSON; skipped");
          return;
        }
        const mapped = mapDingtalkMessage(raw, download);
        if ("skipped" in mapped) {
          context.logger.info(
            { channel: context.channel, reason: mapped.skipped },
            "DingTalk message skipped",
          );
          return;
        }
        await context.inbox.accept({ ...mapped.event, raw });
      },
    });
  };

  return {
    capabilities: instanceCapabilities(options),
    async start(context: ChannelContext) {
      if (running) return;
      running = startStream(context);
      context.signal.addEventListener("abort", () => void stop(), { once: true });
      try {
        await running;
      } catch (error) {
        running = undefined;
        throw error;
      }
    },
    stop,
    send: (target, message, sendOptions) => send(target, message, sendOptions.idempotencyKey),
  };
}

/** The DingTalk channel kind that downcity.json names as `"adapter": "@downcity/adapters-dingtalk"`. */
export const dingtalkChannelAdapter = defineChannelAdapter({
  name: "dingtalk",
  options: dingtalkOptionsSchema,
  create: (options) => createDingtalkAdapter(options),
});
