import type { ChannelTyping } from "@downcity/core";
import type { WecomThinking } from "./wecom-thinking.js";

/**
 * WeCom's "thinking" indicator is the streamed reply bubble of the user's message: it opens as soon
 * as the inbox took the message, so `start` only makes sure it is open (and waits for WeCom to have it).
 * Messages without a req_id (host-made events) have none.
 */
export function createWecomTyping(thinking: WecomThinking): ChannelTyping {
  return {
    refreshMs: 0,
    async start(target) {
      if (target.replyToMessageId) await thinking.open(target.replyToMessageId);
    },
  };
}
