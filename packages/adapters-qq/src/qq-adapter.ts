import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
} from "@downcity/core";
import { createMessageIntake, type MessageIntake } from "./message-intake.js";
import { type QqGateway, startQqGateway } from "./qq-gateway.js";
import { type QqOptions, qqOptionsSchema } from "./qq-options.js";
import { sendQqText } from "./qq-sender.js";
import { createQqTokenSource } from "./qq-token-source.js";
import { startQqWebhookReceiver } from "./qq-webhook-receiver.js";

/**
 * What QQ holds: plain text, no threads. Replies are deduplicated by the platform (msg_id + msg_seq), but a send
 * without a triggering message cannot be, so sends are not declared idempotent.
 */
export const qqCapabilities: ChannelCapabilities = Object.freeze({
  maxTextLength: 2000,
  threads: false,
  markdown: "none",
  idempotentSends: false,
});

/** A QQ bot channel adapter, which also tells its webhook port once started. */
export interface QqAdapter extends ChannelAdapter {
  /** The bound port in webhook mode (after `start`). */
  webhookPort(): number | undefined;
}

/** Creates a QQ bot adapter with its own client (fetch + ws): the gateway or Ed25519-signed webhooks. */
export function createQqAdapter(input: QqOptions | Record<string, unknown>): QqAdapter {
  const options = qqOptionsSchema.parse(input);
  const tokens = createQqTokenSource(options);
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
        },
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
    capabilities: options.mode === "webhook" ? qqCapabilities : { ...qqCapabilities, polls: true },
    webhookPort: () => port,
    async start(context: ChannelContext) {
      if (receiver) return;
      const taking = createMessageIntake(context);
      intake = taking;
      receiver =
        options.mode === "webhook"
          ? startQqWebhookReceiver({ options, context, intake: taking }).then((running) => {
              port = running.port;
              return running;
            })
          : startQqGateway({
              apiBase: options.apiBase,
              tokens,
              intents: options.intents,
              reconnectDelayMs: options.reconnectDelayMs,
              context,
              onDispatch: (dispatch) => taking.take(dispatch.type, dispatch.id, dispatch.data),
            });
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
      sendQqText(
        {
          apiBase: options.apiBase,
          tokens,
          ledger: {
            chatType: (chatId) => intake?.chatType(chatId),
            sentAt: (messageId) => intake?.sentAt(messageId),
          },
        },
        target,
        message.text,
        sendOptions.idempotencyKey,
      ),
  };
}

/** The QQ channel kind that downcity.json names as `"adapter": "@downcity/adapters-qq"`. */
export const qqChannelAdapter = defineChannelAdapter({
  name: "qq",
  options: qqOptionsSchema,
  create: (options) => createQqAdapter(options),
});
