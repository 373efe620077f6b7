import {
  type ChannelEditing,
  type ChannelMessage,
  ChannelSendError,
  type ChannelTarget,
  renderFeishuCard,
} from "@downcity/core";
import { withButtons } from "./feishu-reply-card.js";
import { checkAnswer, type FeishuSenderOptions, feishuSendError } from "./feishu-sender.js";

/** Lark's code for a message already recalled or deleted: deleting it again has nothing left to do. */
const goneCode = 230011;

const isGone = (error: unknown) =>
  error instanceof ChannelSendError && error.message.includes(String(goneCode));

/**
 * Edits a sent reply card in place (`PATCH im/v1/messages/:message_id` with the new card: text and buttons,
 * `actions: []` removing them) and deletes sent messages (`DELETE im/v1/messages/:message_id`). Sending the
 * same card again is a success, and deleting a message already gone is one too, so both are idempotent.
 * Only cards can be edited: a reply that fell back to plain text refuses the edit (the host only logs it).
 */
export function createFeishuEditing(options: FeishuSenderOptions): ChannelEditing {
  return {
    async edit(_target: ChannelTarget, messageId: string, message: ChannelMessage) {
      const content = JSON.stringify(withButtons(renderFeishuCard(message.text), message.actions));
      try {
        checkAnswer(
          options,
          await options.client.im.v1.message.patch({ path: { message_id: messageId }, data: { content } }),
        );
      } catch (error) {
        throw error instanceof ChannelSendError ? error : feishuSendError(options, error);
      }
    },
    async delete(_target: ChannelTarget, messageId: string) {
      try {
        checkAnswer(options, await options.client.im.v1.message.delete({ path: { message_id: messageId } }));
      } catch (error) {
        const failure = error instanceof ChannelSendError ? error : feishuSendError(options, error);
        if (!isGone(failure)) throw failure;
      }
    },
  };
}
