import {
  type ChannelAdapter,
  type ChannelCapabilities,
  type ChannelContext,
  defineChannelAdapter,
  errorFromZod,
} from "@downcity/core";
import { createWebhookListener, type WebhookListener } from "./webhook-listener.js";
import { type WebhookOptionsInput, webhookOptionsSchema } from "./webhook-options.js";
import { createWebhookPoster } from "./webhook-post.js";
import { createWebhookSender } from "./webhook-sender.js";
import { createWebhookTyping } from "./webhook-typing.js";

/** What the webhook channel renders and holds: replies up to 4000 characters, threads, CommonMark. */
export const webhookCapabilities: ChannelCapabilities = Object.freeze<ChannelCapabilities>({
  // Fits the tightest common bridge target (Telegram's 4096) with room for a prefix.
  maxTextLength: 4000,
  threads: true,
  markdown: "commonmark",
  // The receiver gets the idempotency key with every reply, so it can drop a resend.
  idempotentSends: true,
  attachmentsIn: ["image", "audio", "video", "file"],
  attachmentsOut: true,
  format: "markdown",
});

/** A webhook channel adapter, plus where its listener is bound (useful with `listen.port: 0`). */
export interface WebhookAdapter extends ChannelAdapter {
  address(): { host: string; port: number } | undefined;
}

/**
 * Creates a webhook channel: `POST /events` on its own listener feeds the inbox, and each reply
 * is a signed `POST url`. Options are validated here; errors name the field and the fix.
 */
export function createWebhookAdapter(input: WebhookOptionsInput): WebhookAdapter {
  const parsed = webhookOptionsSchema.safeParse(input);
  if (!parsed.success)
    throw errorFromZod(parsed.error, { what: "webhook channel options", code: "CONFIG_INVALID" });
  const options = parsed.data;
  // One kept-alive HTTP client for replies and typing.
  const poster = createWebhookPoster(options.url);
  const send = createWebhookSender({
    url: options.url,
    secret: options.secret,
    timeoutMs: options.sendTimeoutMs,
    poster,
  });
  let listener: WebhookListener | undefined;
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  let detachAbort: (() => void) | undefined;

  const stop = async (): Promise<void> => {
    await starting?.catch(() => {});
    const current = listener;
    if (!current) return stopping;
    listener = undefined;
    detachAbort?.();
    detachAbort = undefined;
    stopping = current.close().finally(() => poster.close());
    return stopping;
  };

  const start = async (channel: ChannelContext): Promise<void> => {
    await stopping;
    if (listener) return;
    const logger = channel.logger;
    const created = createWebhookListener({
      host: options.listen.host,
      port: options.listen.port,
      secret: options.secret,
      maxBodyBytes: options.maxBodyBytes,
      inbox: channel.inbox,
      logger,
    });
    try {
      const address = await created.listen();
      listener = created;
      logger.info({ channel: channel.channel, ...address }, "webhook channel listening");
      channel.setState("connected");
    } catch (error) {
      channel.setState("failed", error instanceof Error ? error.message : String(error));
      throw error;
    }
    const onAbort = () => void stop();
    // Not awaited: stop waits for this start to settle first.
    if (channel.signal.aborted) return onAbort();
    channel.signal.addEventListener("abort", onAbort, { once: true });
    detachAbort = () => channel.signal.removeEventListener("abort", onAbort);
  };

  return {
    capabilities: webhookCapabilities,
    start(channel) {
      if (!starting)
        starting = start(channel).finally(() => {
          starting = undefined;
        });
      return starting;
    },
    stop,
    send,
    ...(options.typingEvents
      ? {
          typing: createWebhookTyping({
            url: options.url,
            secret: options.secret,
            timeoutMs: options.sendTimeoutMs,
            poster,
          }),
        }
      : {}),
    address: () => listener?.address(),
  };
}

/** The webhook channel kind: the default export the daemon loads for `"adapter": "@downcity/adapters-webhook"`. */
export const webhookChannelAdapter = defineChannelAdapter({
  name: "webhook",
  options: webhookOptionsSchema,
  create: (options) => createWebhookAdapter(options),
});
