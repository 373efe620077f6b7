import { errorFields } from "@downcity/core";
import { postQqPart } from "./qq-post-part.js";
import { type QqSenderSettings, qqMessageSeq } from "./qq-sender.js";

/**
 * Replies a user's message may spend on kept follow-ups: the agent's answer to the message needs the
 * rest of the platform's five (a follow-up larger than this still goes, alone).
 */
export const pendingRepliesPerMessage = 2;
/** Failed deliveries after which a kept follow-up is dropped (with an error log line). */
export const maxPendingAttempts = 3;

/**
 * Sends a chat's kept follow-ups as replies to the message that just arrived from it (the one moment QQ
 * lets a bot speak there again), oldest first, within `pendingRepliesPerMessage`; the rest wait for the
 * next message. Each `msg_seq` is fixed by the follow-up and the message, so a resend is recognised.
 * A follow-up is removed once all its parts went out; failures are logged, never thrown.
 */
export async function deliverPendingFollowUps(
  settings: QqSenderSettings,
  message: { chatId: string; chatType: "direct" | "group"; messageId: string },
): Promise<void> {
  const pending = settings.pending();
  if (!pending) return;
  const fields = { channel: settings.channel, chatId: message.chatId };
  let used = 0;
  for (const followUp of await pending.list(message.chatId)) {
    if (used > 0 && used + followUp.parts.length > pendingRepliesPerMessage) return;
    try {
      for (const [index, stored] of followUp.parts.entries()) {
        const seq = qqMessageSeq(`${followUp.key}@${message.messageId}#${index}`);
        const target = { chatId: message.chatId, chatType: followUp.chatType, msgId: message.messageId, seq };
        await postQqPart(settings, target, await pending.load(stored));
        settings.book.replied(message.messageId);
        used += 1;
      }
      await pending.remove(message.chatId, followUp.key);
      settings.logger?.info(
        { ...fields, key: followUp.key },
        "QQ follow-up delivered as a reply to the chat's new message",
      );
    } catch (error) {
      const attempts = await pending.failed(message.chatId, followUp.key).catch(() => maxPendingAttempts);
      if (attempts >= maxPendingAttempts) {
        await pending.remove(message.chatId, followUp.key).catch(() => undefined);
        settings.logger?.error(
          { ...fields, key: followUp.key, ...errorFields(error) },
          `QQ follow-up dropped after ${attempts} failed deliveries`,
        );
      } else
        settings.logger?.warn(
          { ...fields, key: followUp.key, ...errorFields(error) },
          "QQ follow-up not delivered; it waits for the chat's next message",
        );
      return;
    }
  }
}
