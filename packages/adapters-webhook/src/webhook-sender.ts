import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
} from "@downcity/core";
import { parseRetryAfter } from "./retry-after.js";
import { createWebhookPoster, type WebhookAnswer, type WebhookPoster } from "./webhook-post.js";
import { signWebhookBody } from "./webhook-signature.js";

/** Options of `createWebhookSender`. */
export interface WebhookSenderOptions {
  url: string;
  secret: string;
  timeoutMs: number;
  now?: () => number;
  /** The HTTP client to post with (the adapter shares one with typing); one of its own when absent. */
  poster?: WebhookPoster;
}

/** Sends one reply as a signed `POST url`. */
export type WebhookSend = (
  target: ChannelTarget,
  message: ChannelMessage,
  options: { idempotencyKey: string },
) => Promise<ChannelSendResult>;

// Statuses a retry can fix besides 5xx: the receiver timed out or asked to wait.
const retryable4xx = new Set([408, 425, 429]);

/**
 * Creates the outbound half of the webhook channel. Any 2xx is delivered; 429 carries the
 * receiver's `Retry-After`; 5xx, 408, 425 and network failures are retryable; other statuses
 * are permanent. Errors name the receiver's origin only: a URL's path or query may hold a token.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSend {
  const origin = new URL(options.url).origin;
  const poster = options.poster ?? createWebhookPoster(options.url);
  return async (target, message, { idempotencyKey }) => {
    const body = JSON.stringify({
      idempotencyKey,
      chatId: target.chatId,
      ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
      text: message.text,
      // CommonMark as the model wrote it: the receiver renders.
      format: "markdown",
      ...(message.attachments?.length
        ? {
            attachments: message.attachments.map((file) => ({
              name: file.name,
              mediaType: file.mediaType,
              size: file.size,
              data: Buffer.from(file.data).toString("base64"),
            })),
          }
        : {}),
      ...(target.replyToMessageId === undefined ? {} : { replyToMessageId: target.replyToMessageId }),
    });
    let response: WebhookAnswer;
    try {
      response = await poster.post(
        body,
        {
          "content-type": "application/json; charset=utf-8",
          "idempotency-key": idempotencyKey,
          "x-downcity-signature": signWebhookBody(options.secret, body),
        },
        options.timeoutMs,
      );
    } catch (error) {
      const reason =
        error instanceof Error && error.name === "TimeoutError"
          ? `no answer within ${options.timeoutMs} ms (sendTimeoutMs)`
          : describeNetworkError(error);
      throw new ChannelSendError(`webhook send to ${origin} failed: ${reason}`, { cause: error });
    }
    const status = response.status;
    if (status >= 200 && status < 300) return messageIdOf(response.text);
    const what = `webhook send to ${origin} failed: HTTP ${status}`;
    if (status === 429) {
      const retryAfterMs = parseRetryAfter(response.header("retry-after"), options.now);
      throw new ChannelSendError(`${what} (rate limited)`, {
        status,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
    }
    if (status >= 500 || retryable4xx.has(status)) throw new ChannelSendError(what, { status });
    const hint =
      status >= 300 && status < 400 ? " (redirects are not followed: set url to the final address)" : "";
    throw new ChannelSendError(`${what}${hint}`, { status, permanent: true });
  };
}

/** The receiver may answer `{ "messageId": "..." }`; anything else is fine too. */
function messageIdOf(text: string): ChannelSendResult {
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as { messageId?: unknown };
    return typeof parsed?.messageId === "string" ? { messageId: parsed.messageId } : {};
  } catch {
    return {};
  }
}

function describeNetworkError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.message : String(error);
}
