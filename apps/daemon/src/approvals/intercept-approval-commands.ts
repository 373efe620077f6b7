import { type ChannelInbox, errorFields, type Logger } from "@downcity/core";
import type { ApprovalRoute } from "./approval-gate.js";

/**
 * The channel host's `interceptInbox`: `/approve` and `/deny` are answered here and never reach
 * the model; the answer (when there is one to give) goes back to the chat it came from.
 */
export function interceptApprovalCommands(options: {
  answer(input: { channel: string; userId: string; text: string }): Promise<string | undefined>;
  notify(route: ApprovalRoute, contextId: string, key: string, text: string): Promise<void>;
  logger: Logger;
}): (channel: string, inbox: ChannelInbox) => ChannelInbox {
  return (channel, inbox) => ({
    async accept(event) {
      if (event.fromBot || !/^\s*\/(approve|deny)\b/i.test(event.text)) return inbox.accept(event);
      const reply = await options.answer({ channel, userId: event.userId, text: event.text });
      if (reply !== undefined) {
        const route = {
          channel,
          chatId: event.chatId,
          ...(event.threadId ? { threadId: event.threadId } : {}),
        };
        await options
          .notify(
            route,
            `${channel}:${event.chatId}${event.threadId ? `:${event.threadId}` : ""}`,
            `approval-answer:${channel}:${event.eventId}`,
            reply,
          )
          .catch((error) => options.logger.warn(errorFields(error), "could not answer an approval command"));
      }
      return "accepted";
    },
  });
}
