import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
} from "@downcity/core";
import { deliverPendingFollowUps } from "./deliver-pending-follow-ups.js";
import { weixinAttachmentKinds } from "./map-weixin-message.js";
import { createMessageIntake, type MessageIntake } from "./message-intake.js";
import { createWeixinChatBook } from "./weixin-chat-book.js";
import { readWeixinCredentials } from "./weixin-credentials.js";
import type { WeixinConnection } from "./weixin-http.js";
import { type WeixinOptions, weixinOptionsSchema } from "./weixin-options.js";
import { createWeixinPendingFollowUps, type WeixinPendingFollowUps } from "./weixin-pending-follow-ups.js";
import { startWeixinPoller, type WeixinPoller } from "./weixin-poller.js";
import type { WeixinPostSettings } from "./weixin-post-part.js";
import { sendWeixinMessage, type WeixinSenderSettings } from "./weixin-sender.js";
import { createWeixinTyping } from "./weixin-typing.js";

/** How long the context token of a user's message is used for replies and follow-ups. */
export const contextTokenMaxAgeMs = 24 * 3600_000;

/**
 * What WeChat holds: plain text only (it renders no Markdown), no threads, images, voice notes, videos and
 * files in, images and files out. iLink documents no dedupe of `client_id`, so sends are not idempotent.
 * The adapter long-polls: on a shared store one worker at a time polls.
 */
export const weixinCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 4000,
  threads: false,
  markdown: "none",
  format: "plain",
  idempotentSends: false,
  attachmentsIn: weixinAttachmentKinds,
  attachmentsOut: true,
  polls: true,
});

/**
 * Creates a WeChat (personal) adapter on Tencent's iLink bot API: the bot token from the options or from
 * the binding `downcity channels login` stored in the channel's state folder, a durable getupdates
 * cursor, passive replies with the user's context token (follow-ups without one wait for the next
 * message), media through the encrypted CDN, and typing in direct chats.
 */
export function createWeixinAdapter(input: WeixinOptions | Record<string, unknown>): ChannelAdapter {
  const options = weixinOptionsSchema.parse(input);
  const book = createWeixinChatBook();
  let current: WeixinPostSettings | undefined;
  let pending: WeixinPendingFollowUps | undefined;
  let stateDir: string | undefined;
  const connection = async (): Promise<WeixinConnection | undefined> => {
    const stored = stateDir ? await readWeixinCredentials(stateDir) : undefined;
    const token = options.token ?? stored?.botToken;
    if (!token) return undefined;
    const baseUrl = (options.token ? undefined : stored?.baseUrl) ?? options.baseUrl;
    current = { baseUrl, token, botAgent: options.botAgent, cdnBaseUrl: options.cdnBaseUrl };
    return current;
  };
  const sender: WeixinSenderSettings = {
    connection: () => current,
    book,
    pending: () => pending,
    maxTextLength: weixinCapabilities.maxTextLength,
    contextTokenMaxAgeMs,
  };
  let intake: MessageIntake | undefined;
  let poller: Promise<WeixinPoller> | undefined;
  let stopping: Promise<void> | undefined;

  const stop = async () => {
    if (!poller) return;
    stopping ??= poller
      .then(
        async (running) => {
          await running.stop();
          await intake?.drain();
          await book.flush();
        },
        () => undefined,
      )
      .finally(() => {
        poller = undefined;
        stopping = undefined;
      });
    await stopping;
  };

  const startPolling = async (context: ChannelContext): Promise<WeixinPoller> => {
    sender.logger = context.logger;
    sender.channel = context.channel;
    stateDir = context.stateDir;
    await book.attach(context.stateDir);
    pending = createWeixinPendingFollowUps(context.stateDir);
    await connection();
    const taking = createMessageIntake(context, {
      book,
      cdnBaseUrl: options.cdnBaseUrl,
      downloadTimeoutMs: options.downloadTimeoutMs,
      mentionNames: options.mentionNames,
      afterAccept: (message, token) => deliverPendingFollowUps(sender, message, token),
    });
    intake = taking;
    return startWeixinPoller({ options, context, connection, take: (message) => taking.take(message) });
  };

  return {
    capabilities: weixinCapabilities,
    typing: createWeixinTyping({ connection: () => current, book, contextTokenMaxAgeMs }),
    async start(context) {
      if (poller) return;
      poller = startPolling(context);
      context.signal.addEventListener("abort", () => void stop(), { once: true });
      try {
        await poller;
      } catch (error) {
        poller = undefined;
        throw error;
      }
    },
    stop,
    send: (target, message, sendOptions) =>
      sendWeixinMessage(sender, target, message, sendOptions.idempotencyKey),
  };
}

/** The WeChat channel kind that downcity.json names as `"adapter": "@downcity/adapters-weixin"`. */
export const weixinChannelAdapter = defineChannelAdapter({
  name: "weixin",
  options: weixinOptionsSchema,
  create: (options) => createWeixinAdapter(options),
});
