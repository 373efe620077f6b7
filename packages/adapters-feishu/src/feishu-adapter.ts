import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
  type Logger,
  silentLogger,
} from "@downcity/core";
import { createActionAnswers } from "./action-answers.js";
import { createChatPlaces } from "./chat-places.js";
import { downloadFeishuResource } from "./download-feishu-resource.js";
import { createFeishuClient, type FeishuClient } from "./feishu-client.js";
import { createFeishuEditing } from "./feishu-editing.js";
import { type FeishuOptions, feishuOptionsSchema } from "./feishu-options.js";
import { sendFeishuMessage, sendUuid } from "./feishu-sender.js";
import { createFeishuTyping } from "./feishu-typing.js";
import { createMessageHandler } from "./message-handler.js";
import { quotedText } from "./quoted-text.js";
import { feishuAttachmentKinds } from "./read-feishu-content.js";
import { createSdkLogger } from "./sdk-logger.js";
import { sendFeishuReply } from "./send-feishu-reply.js";
import { startWebhookReceiver } from "./webhook-receiver.js";
import { type FeishuReceiver, startWebsocketReceiver } from "./websocket-receiver.js";

/**
 * What Lark holds: replies as interactive cards (the adapter renders the Markdown and chunks the cards, 8,000
 * characters of card markdown each), threads (reply_in_thread), sends deduplicated by `uuid`, files both ways,
 * buttons on cards.
 */
export const feishuCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 8000,
  threads: true,
  markdown: "lark-md",
  idempotentSends: true,
  attachmentsIn: feishuAttachmentKinds,
  attachmentsOut: true,
  actions: true,
  format: "feishu-card",
});

/** A Feishu/Lark channel adapter, which also tells its bot's open_id and its webhook port once known. */
export interface FeishuAdapter extends ChannelAdapter {
  /** The bot's open_id (asked from `bot/v3/info`). */
  botOpenId(): Promise<string>;
  /** The bound port in webhook mode (after `start`). */
  webhookPort(): number | undefined;
}

/** A button press as the host hands it back to `answerAction`. */
type PressEvent = Parameters<NonNullable<ChannelAdapter["answerAction"]>>[0];

/** Answers a button press too late for a toast: said in the chat, under the card, once. */
function answerInChat(lark: FeishuClient, event: PressEvent, text: string) {
  const target = {
    chatId: event.chatId,
    replyToMessageId: event.messageId,
    ...(event.threadId ? { threadId: event.threadId } : {}),
  };
  const body = { msgType: "text" as const, content: JSON.stringify({ text }) };
  return sendFeishuMessage(lark, target, body, sendUuid(`answer:${event.eventId}`));
}

/**
 * Creates a Feishu/Lark adapter on `@larksuiteoapi/node-sdk`: the long connection or a webhook server,
 * replies as cards with `uuid`, files in and out, a reaction while a run works, card edits and buttons.
 */
export function createFeishuAdapter(
  input: FeishuOptions | Record<string, unknown>,
  settings: { logger?: Logger } = {},
): FeishuAdapter {
  const options = feishuOptionsSchema.parse(input);
  let logger = settings.logger ?? silentLogger;
  const lark = createFeishuClient(options, logger);
  const places = createChatPlaces((chatId) => lark.chatType(chatId));
  const answers = createActionAnswers();
  let receiver: Promise<FeishuReceiver & { port?: number }> | undefined;
  let port: number | undefined;
  let stopping: Promise<void> | undefined;

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

  const start = async (context: ChannelContext) => {
    if (receiver) return;
    logger = context.logger;
    lark.useLogger(context.logger);
    const sdkLogger = createSdkLogger(context.logger, context.channel, lark.secrets);
    const handler = createMessageHandler(context, {
      botOpenId: () => lark.botOpenId(),
      fetcher: (resource) => (fetchOptions) => downloadFeishuResource(lark.client, resource, fetchOptions),
      places,
      answers,
      quote: (messageId) => quotedText(lark.client, messageId),
    });
    receiver =
      options.mode === "webhook"
        ? startWebhookReceiver({ options, context, handler, sdkLogger }).then((running) => {
            port = running.port;
            return running;
          })
        : startWebsocketReceiver({ options, context, handler, httpInstance: lark.httpInstance, sdkLogger });
    context.signal.addEventListener("abort", () => void stop(), { once: true });
    // Warm the identity so the first group mention needs no extra round trip; a failure is retried on use.
    lark.botOpenId().catch(() => {});
    try {
      await receiver;
    } catch (error) {
      receiver = undefined;
      throw error;
    }
  };

  return {
    // Polling and gateway modes pull events: with a shared store one worker at a time runs them.
    capabilities: options.mode === "webhook" ? feishuCapabilities : { ...feishuCapabilities, polls: true },
    botOpenId: () => lark.botOpenId(),
    webhookPort: () => port,
    typing: createFeishuTyping(lark),
    editing: createFeishuEditing(lark),
    start,
    stop,
    async send(target, message, sendOptions) {
      places.noteChat(target.chatId, target.chatType);
      const onFallback = ({ reason, chatId }: { reason: string; chatId: string }) =>
        logger.warn(
          { chatId, reason },
          "Lark refused the reply card; sent the rest of the reply as plain text",
        );
      const result = await sendFeishuReply(lark, target, message, sendOptions.idempotencyKey, onFallback);
      if (result.messageId) places.noteSent(result.messageId, target.threadId);
      return result;
    },
    async answerAction(event, text) {
      const callbackId = event.action?.callbackId;
      if (callbackId && answers.answer(callbackId, text)) return;
      // Too late for a toast: a real answer is said under the card; an empty one has nothing to say.
      if (text) await answerInChat(lark, event, text);
    },
  };
}

/** The Feishu/Lark channel kind that downcity.json names as `"adapter": "@downcity/adapters-feishu"`. */
export const feishuChannelAdapter = defineChannelAdapter({
  name: "feishu",
  options: feishuOptionsSchema,
  create: (options, { logger }) => createFeishuAdapter(options, { logger }),
});
