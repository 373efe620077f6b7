import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
} from "@downcity/core";
import { deliverPendingFollowUps } from "./deliver-pending-follow-ups.js";
import { qqAttachmentKinds } from "./map-qq-attachment.js";
import { createMessageIntake, type MessageIntake } from "./message-intake.js";
import { createQqChatBook } from "./qq-chat-book.js";
import { type QqGateway, startQqGateway } from "./qq-gateway.js";
import { type QqOptions, qqOptionsSchema } from "./qq-options.js";
import { createQqPendingFollowUps, type QqPendingFollowUps } from "./qq-pending-follow-ups.js";
import { type QqSenderSettings, sendQqMessage } from "./qq-sender.js";
import { createQqTokenSource } from "./qq-token-source.js";
import { createQqTyping } from "./qq-typing.js";
import { startQqWebhookReceiver } from "./qq-webhook-receiver.js";

/**
 * What QQ holds: Markdown replies (QQ markdown, or plain text once the platform refuses it), no threads, images,
 * voice notes, videos and files both ways (groups take no plain files). Replies are deduplicated by the platform
 * (msg_id + msg_seq), but a proactive send cannot be, so sends are not declared idempotent.
 */
export const qqCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 2000,
  threads: false,
  markdown: "commonmark",
  idempotentSends: false,
  // The adapter renders the Markdown and chunks the rendered text, so the host hands it replies whole.
  format: "qq-markdown",
  attachmentsIn: qqAttachmentKinds,
  attachmentsOut: true,
});

// One instance's capabilities: plain text when markdown is off, and a poller in websocket mode.
function instanceCapabilities(options: QqOptions): ChannelCapabilities {
  return {
    ...qqCapabilities,
    ...(options.markdown ? {} : { markdown: "none" as const, format: "plain" as const }),
    // Polling and gateway modes pull events: with a shared store one worker at a time runs them.
    ...(options.mode === "webhook" ? {} : { polls: true }),
  };
}

/** A QQ bot channel adapter, which also tells its webhook port once started. */
export interface QqAdapter extends ChannelAdapter {
  /** The bound port in webhook mode (after `start`). */
  webhookPort(): number | undefined;
}

/**
 * Creates a QQ bot adapter with its own client (fetch + ws): the gateway or Ed25519-signed webhooks in, passive
 * replies (proactive messages, or kept for the chat's next message, when there is nothing to reply to) out.
 */
export function createQqAdapter(input: QqOptions | Record<string, unknown>): QqAdapter {
  const options = qqOptionsSchema.parse(input);
  const tokens = createQqTokenSource(options);
  const book = createQqChatBook();
  let pending: QqPendingFollowUps | undefined;
  const sender: QqSenderSettings = {
    apiBase: options.apiBase,
    tokens,
    book,
    pending: () => pending,
    markdown: { allowed: options.markdown },
    rendersMarkdown: options.markdown,
    maxTextLength: qqCapabilities.maxTextLength,
  };
  let intake: MessageIntake | undefined;
  let receiver: Promise<QqGateway & { port?: number }> | undefined;
  let port: number | undefined;
  let stopping: Promise<void> | undefined;

  const stop = async () => {
    if (!receiver) return;
    stopping ??= receiver
      .then(
        async (running) => {
          await running.stop();
          await intake?.drain();
          await book.flush();
        },
        () => undefined,
      )
      .finally(() => {
        receiver = undefined;
        stopping = undefined;
      });
    await stopping;
  };

  // The chat book and the kept follow-ups live in the instance's state folder, known from `start` on.
  const startReceiving = async (context: ChannelContext): Promise<QqGateway & { port?: number }> => {
    sender.logger = context.logger;
    sender.channel = context.channel;
    await book.attach(context.stateDir);
    pending = createQqPendingFollowUps(context.stateDir);
    const taking = createMessageIntake(context, {
      book,
      downloadTimeoutMs: options.downloadTimeoutMs,
      afterAccept: (message) => deliverPendingFollowUps(sender, message),
    });
    intake = taking;
    if (options.mode === "webhook") {
      const running = await startQqWebhookReceiver({ options, context, intake: taking });
      port = running.port;
      return running;
    }
    return startQqGateway({
      apiBase: options.apiBase,
      tokens,
      intents: options.intents,
      reconnectDelayMs: options.reconnectDelayMs,
      context,
      onDispatch: (dispatch) => taking.take(dispatch.type, dispatch.id, dispatch.data),
    });
  };

  return {
    capabilities: instanceCapabilities(options),
    webhookPort: () => port,
    typing: createQqTyping({ apiBase: options.apiBase, tokens, kind: book.kind }),
    async start(context: ChannelContext) {
      if (receiver) return;
      receiver = startReceiving(context);
      context.signal.addEventListener("abort", () => void stop(), { once: true });
      try {
        await receiver;
      } catch (error) {
        receiver = undefined;
        throw error;
      }
    },
    stop,
    send: (target, message, sendOptions) =>
      sendQqMessage(sender, target, message, sendOptions.idempotencyKey),
  };
}

/** The QQ channel kind that downcity.json names as `"adapter": "@downcity/adapters-qq"`. */
export const qqChannelAdapter = defineChannelAdapter({
  name: "qq",
  options: qqOptionsSchema,
  create: (options) => createQqAdapter(options),
});
