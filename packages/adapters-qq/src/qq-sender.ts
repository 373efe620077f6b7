import { createHash } from "node:crypto";
import {
  type ChannelMessage,
  ChannelSendError,
  type ChannelSendResult,
  type ChannelTarget,
} from "@downcity/core";
import { type QqChatBook, qqReplyWindowMs } from "./qq-chat-book.js";
import { type QqPart, qqMessageParts } from "./qq-message-parts.js";
import type { QqPendingFollowUps } from "./qq-pending-follow-ups.js";
import { postQqPart, type QqPostSettings } from "./qq-post-part.js";
import { isProactiveRefused, isReplyRefused, toChannelSendError } from "./qq-send-refusal.js";

export { qqReplyWindowMs } from "./qq-chat-book.js";

/** The `msg_seq` of an outbox entry: fixed by its idempotency key, so a resend is recognised by the platform. */
export function qqMessageSeq(idempotencyKey: string): number {
  return (createHash("sha256").update(idempotencyKey).digest().readUInt32BE(0) % 0x7ffffffe) + 1;
}

/** What sending needs beyond posting: the chats heard from, the pending follow-ups, the rendering. */
export interface QqSenderSettings extends QqPostSettings {
  book: QqChatBook;
  /** The instance's pending follow-ups (undefined before `start` gave it a state folder). */
  pending(): QqPendingFollowUps | undefined;
  /** Longest text of one QQ message. */
  maxTextLength: number;
  /** True when replies arrive as Markdown to render (`format: "qq-markdown"`). */
  rendersMarkdown: boolean;
  now?: () => number;
}

/**
 * Sends one reply to a QQ chat, as passive replies whenever the platform allows: to the triggering message
 * (`msg_id`, with a `msg_seq` fixed per outbox entry and part, so a resend is recognised) while its window is
 * open (60 min direct, 5 min group, 5 replies), else to the chat's newest message if that one is still open.
 * Without either (a follow-up hours later, a reply past its window) it goes as a proactive message; when the
 * platform refuses that too (most bots may not send proactively, the others four a month), the rest is kept in
 * the instance's state folder and delivered as a reply to the chat's next message, and the send succeeds.
 */
export async function sendQqMessage(
  settings: QqSenderSettings,
  target: ChannelTarget,
  message: ChannelMessage,
  idempotencyKey: string,
): Promise<ChannelSendResult> {
  const chatType = target.chatType ?? settings.book.kind(target.chatId);
  if (!chatType)
    throw new ChannelSendError(
      `QQ cannot tell whether ${target.chatId} is a user or a group: the bot has not heard from this chat`,
      { permanent: true },
    );
  const parts = qqMessageParts(message, {
    markdown: settings.rendersMarkdown && settings.markdown.allowed,
    renderPlain: settings.rendersMarkdown,
    maxLength: settings.maxTextLength,
  });
  if (parts.length === 0) return {};
  let msgId = replyTarget(settings, target, chatType, parts.length);
  let result: ChannelSendResult = {};
  for (let index = 0; index < parts.length; index++) {
    const seq = qqMessageSeq(index === 0 ? idempotencyKey : `${idempotencyKey}#${index}`);
    try {
      const answer = await postQqPart(
        settings,
        { chatId: target.chatId, chatType, msgId, seq },
        parts[index] as QqPart,
      );
      if (msgId) settings.book.replied(msgId);
      if (answer.id) result = { messageId: answer.id };
    } catch (error) {
      if (msgId && isReplyRefused(error)) {
        settings.logger?.info(
          { channel: settings.channel, chatId: target.chatId, reason: (error as Error).message },
          "QQ refused a reply (window passed or five replies used); sending it as a proactive message",
        );
        msgId = undefined;
        index -= 1;
        continue;
      }
      if (!msgId && isProactiveRefused(error)) {
        await keepForNextMessage(
          settings,
          target.chatId,
          chatType,
          idempotencyKey,
          parts.slice(index),
          error,
        );
        return result;
      }
      throw toChannelSendError(error);
    }
  }
  return result;
}

/** The message to reply to: the trigger while open, else the chat's newest message while open. */
function replyTarget(
  settings: QqSenderSettings,
  target: ChannelTarget,
  chatType: "direct" | "group",
  replies: number,
): string | undefined {
  const now = (settings.now ?? Date.now)();
  const asked = target.replyToMessageId;
  if (asked) {
    const sentAt = settings.book.sentAt(asked);
    // A trigger the adapter never saw (another worker's, before a restart): the platform decides.
    if (sentAt === undefined || now - sentAt <= qqReplyWindowMs[chatType]) return asked;
  }
  return settings.book.replyable(target.chatId, now, replies);
}

async function keepForNextMessage(
  settings: QqSenderSettings,
  chatId: string,
  chatType: "direct" | "group",
  key: string,
  parts: QqPart[],
  refusal: unknown,
) {
  const pending = settings.pending();
  if (!pending) throw new ChannelSendError("QQ channel is not started: cannot keep the follow-up for later");
  try {
    await pending.keep(chatId, { key, chatType, parts });
  } catch (error) {
    throw new ChannelSendError(`QQ follow-up could not be kept for later: ${(error as Error).message}`);
  }
  settings.logger?.info(
    { channel: settings.channel, chatId, reason: (refusal as Error).message },
    "QQ refused a proactive message; kept it to send as a reply to this chat's next message",
  );
}
