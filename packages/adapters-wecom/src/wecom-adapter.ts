import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
} from "@downcity/core";
import type { WSClient } from "@wecom/aibot-node-sdk";
import { wecomAttachmentKinds } from "./map-wecom-message.js";
import { openWecomConnection, type WecomConnection } from "./wecom-connection.js";
import { createWecomIntake, type WecomIntake } from "./wecom-intake.js";
import { createWecomMediaFetch } from "./wecom-media-download.js";
import { type WecomOptions, wecomOptionsSchema } from "./wecom-options.js";
import { createWecomReplyBook } from "./wecom-reply-book.js";
import { describeWecomError } from "./wecom-send-error.js";
import { sendWecomMessage } from "./wecom-sender.js";
import { createWecomSentRecord } from "./wecom-sent-record.js";
import { createWecomThinking } from "./wecom-thinking.js";
import { createWecomTyping } from "./wecom-typing.js";

/** How long a callback's req_id is offered for replies before sends go out as pushed messages. */
export const wecomReplyWindowMs = 24 * 60 * 60 * 1000;

/**
 * What WeCom holds: markdown replies (a streamed bubble per user message, plain text once refused),
 * no threads, images, files and videos in (voice arrives as WeCom's transcript), images and files
 * out. WeCom takes no idempotency key, so sends are not declared idempotent (see the README's window).
 * The long connection is pulled by one worker at a time (`polls`).
 */
export const wecomCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 4000,
  threads: false,
  markdown: "commonmark",
  format: "markdown",
  idempotentSends: false,
  attachmentsIn: wecomAttachmentKinds,
  attachmentsOut: true,
  polls: true,
});

/**
 * Creates a WeCom intelligent-bot adapter on the official SDK (`@wecom/aibot-node-sdk`): one
 * WebSocket long connection receives direct and group (@-mention) messages and carries every reply.
 */
export function createWecomAdapter(input: WecomOptions | Record<string, unknown>): ChannelAdapter {
  const options = wecomOptionsSchema.parse(input);
  const book = createWecomReplyBook({ windowMs: wecomReplyWindowMs });
  const sent = createWecomSentRecord();
  let connection: WecomConnection | undefined;
  let intake: WecomIntake | undefined;
  let running: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let context: ChannelContext | undefined;
  const client = (): WSClient | undefined => connection?.client;
  const thinking = createWecomThinking({
    book,
    client,
    text: options.thinkingText,
    onError: (error) =>
      context?.logger.warn(
        { channel: context.channel, error: describeWecomError(error) },
        "WeCom refused the thinking bubble",
      ),
  });

  const startReceiving = async (started: ChannelContext) => {
    context = started;
    await Promise.all([book.attach(started), sent.attach(started)]);
    const taking = createWecomIntake(started, {
      book,
      thinking,
      fetchMedia: createWecomMediaFetch(options.downloadTimeoutMs),
      ...(options.botName ? { botName: options.botName } : {}),
    });
    intake = taking;
    connection = await openWecomConnection({
      options,
      context: started,
      onMessage: (frame) =>
        void taking.take(frame).catch((error: unknown) => {
          // Not answered: dropping the connection makes WeCom push the message again.
          started.logger.warn(
            { channel: started.channel, error: describeWecomError(error) },
            "the inbox could not take a WeCom message; reconnecting so it is delivered again",
          );
          connection?.reconnect("the inbox could not take a message");
        }),
    });
  };

  const stop = async () => {
    if (!running) return;
    stopping ??= running
      .then(
        async () => {
          await connection?.stop();
          await intake?.drain();
          await book.flush();
        },
        () => undefined,
      )
      .finally(() => {
        running = undefined;
        stopping = undefined;
        connection = undefined;
      });
    await stopping;
  };

  return {
    capabilities: wecomCapabilities,
    typing: createWecomTyping(thinking),
    async start(started) {
      if (running) return;
      running = startReceiving(started);
      started.signal.addEventListener("abort", () => void stop(), { once: true });
      try {
        await running;
      } catch (error) {
        running = undefined;
        throw error;
      }
    },
    stop,
    send: (target, message, sendOptions) =>
      sendWecomMessage(
        { book, sent, client, rateLimitRetryMs: options.rateLimitRetryMs },
        target,
        message,
        sendOptions.idempotencyKey,
      ),
  };
}

/** The WeCom channel kind that downcity.json names as `"adapter": "@downcity/adapters-wecom"`. */
export const wecomChannelAdapter = defineChannelAdapter({
  name: "wecom",
  options: wecomOptionsSchema,
  create: (options) => createWecomAdapter(options),
});
