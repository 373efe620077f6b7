import { ChannelSendError, type ChannelTarget, type ChannelTyping } from "@downcity/core";
import type { FeishuSenderOptions } from "./feishu-sender.js";
import { checkAnswer, feishuSendError } from "./feishu-sender.js";

/** The reaction shown on the user's message while the agent works on it (Lark's "Typing" emoji). */
export const typingEmoji = "Typing";

/**
 * Lark has no typing indicator for bots: the adapter adds a reaction to the message being answered
 * (`POST im/v1/messages/:message_id/reactions`) and removes it when the run ends
 * (`DELETE .../reactions/:reaction_id`). A reaction does not fade, so it is added once (`refreshMs: 0`).
 * Runs without a user message to react to (follow-ups, task notices) show nothing.
 */
export function createFeishuTyping(options: FeishuSenderOptions): ChannelTyping {
  // The reaction ids this process added, by message: what `stop` removes.
  const shown = new Map<string, Promise<string | undefined>>();

  const add = async (messageId: string): Promise<string | undefined> => {
    try {
      const answer = await options.client.im.v1.messageReaction.create({
        path: { message_id: messageId },
        data: { reaction_type: { emoji_type: typingEmoji } },
      });
      checkAnswer(options, answer);
      return answer.data?.reaction_id;
    } catch (error) {
      throw error instanceof ChannelSendError ? error : feishuSendError(options, error);
    }
  };

  return {
    refreshMs: 0,
    async start(target: ChannelTarget) {
      const messageId = target.replyToMessageId;
      if (!messageId || shown.has(messageId)) return;
      const adding = add(messageId);
      shown.set(
        messageId,
        adding.catch(() => undefined),
      );
      try {
        await adding;
      } catch (error) {
        shown.delete(messageId);
        throw error;
      }
    },
    async stop(target: ChannelTarget) {
      const messageId = target.replyToMessageId;
      if (!messageId) return;
      const reactionId = await shown.get(messageId);
      shown.delete(messageId);
      if (!reactionId) return;
      try {
        const answer = await options.client.im.v1.messageReaction.delete({
          path: { message_id: messageId, reaction_id: reactionId },
        });
        checkAnswer(options, answer);
      } catch (error) {
        throw error instanceof ChannelSendError ? error : feishuSendError(options, error);
      }
    },
  };
}
