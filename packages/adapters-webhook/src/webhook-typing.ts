import type { ChannelTarget, ChannelTyping } from "@downcity/core";
import { createWebhookPoster, type WebhookPoster } from "./webhook-post.js";
import { signWebhookBody } from "./webhook-signature.js";

/** How often the receiver is told again that the agent is still working on a chat. */
export const webhookTypingRefreshMs = 5000;

/**
 * Typing for a receiver that opted in (`typingEvents: true`): a signed `{"type":"typing"}` POST to
 * the reply URL, renewed while the run lasts, and `{"type":"typing-stopped"}` at its end. Best
 * effort: the host only logs a failure, and no retry holds up a reply.
 */
export function createWebhookTyping(options: {
  url: string;
  secret: string;
  timeoutMs: number;
  /** The HTTP client to post with (shared with the sender); one of its own when absent. */
  poster?: WebhookPoster;
}): ChannelTyping {
  const poster = options.poster ?? createWebhookPoster(options.url);
  const post = async (type: "typing" | "typing-stopped", target: ChannelTarget) => {
    const body = JSON.stringify({
      type,
      chatId: target.chatId,
      ...(target.threadId === undefined ? {} : { threadId: target.threadId }),
    });
    const response = await poster.post(
      body,
      {
        "content-type": "application/json; charset=utf-8",
        "x-downcity-signature": signWebhookBody(options.secret, body),
      },
      options.timeoutMs,
    );
    if (response.status < 200 || response.status >= 300)
      throw new Error(`the receiver answered a ${type} post with HTTP ${response.status}`);
  };
  return {
    refreshMs: webhookTypingRefreshMs,
    start: (target) => post("typing", target),
    stop: (target) => post("typing-stopped", target),
  };
}
