import { createHash } from "node:crypto";
import { ChannelSendError, type ChannelSendResult, type ChannelTarget } from "@downcity/core";
import { QqApiError } from "./qq-api-error.js";
import { qqRequest } from "./qq-http.js";
import type { QqTokenSource } from "./qq-token-source.js";

/** The platform's answer to a msg_id + msg_seq pair it has already accepted. */
const duplicateSeqCode = 40054005;
/** How long after a user's message the bot may reply to it. */
export const qqReplyWindowMs = { direct: 60 * 60_000, group: 5 * 60_000 } as const;

/** The `msg_seq` of an outbox entry: fixed by its idempotency key, so a resend is recognised by the platform. */
export function qqMessageSeq(idempotencyKey: string): number {
  return (createHash("sha256").update(idempotencyKey).digest().readUInt32BE(0) % 0x7ffffffe) + 1;
}

/** What the adapter learned about messages it received: their chat kind and when they were sent. */
export interface QqMessageLedger {
  chatType(chatId: string): "direct" | "group" | undefined;
  sentAt(messageId: string): number | undefined;
}

/**
 * Sends one text as a reply (`msg_id` + a `msg_seq` fixed per outbox entry): to `/v2/users/{openid}/messages` for
 * direct chats, `/v2/groups/{group_openid}/messages` for groups. A reply past the platform's window (60 min direct,
 * 5 min group) fails permanently with a message that says so.
 */
export async function sendQqText(
  settings: { apiBase: string; tokens: QqTokenSource; ledger: QqMessageLedger; now?: () => number },
  target: ChannelTarget,
  text: string,
  idempotencyKey: string,
): Promise<ChannelSendResult> {
  const chatType = target.chatType ?? settings.ledger.chatType(target.chatId);
  if (!chatType)
    throw new ChannelSendError(
      `QQ cannot tell whether ${target.chatId} is a user or a group: only replies to a received message can be sent`,
      { permanent: true },
    );
  if (target.replyToMessageId) {
    const sentAt = settings.ledger.sentAt(target.replyToMessageId);
    const window = qqReplyWindowMs[chatType];
    const age = sentAt === undefined ? undefined : (settings.now ?? Date.now)() - sentAt;
    if (age !== undefined && age > window)
      throw new ChannelSendError(
        `QQ reply window closed: ${chatType === "group" ? "group messages can be answered for 5 minutes" : "direct messages can be answered for 60 minutes"} after they were sent (this one is ${Math.round(age / 60_000)} min old); the reply was not sent`,
        { permanent: true },
      );
  }
  const path =
    chatType === "group"
      ? `/v2/groups/${encodeURIComponent(target.chatId)}/messages`
      : `/v2/users/${encodeURIComponent(target.chatId)}/messages`;
  const body = {
    content: text,
    msg_type: 0,
    ...(target.replyToMessageId ? { msg_id: target.replyToMessageId } : {}),
    msg_seq: qqMessageSeq(idempotencyKey),
  };
  try {
    const answer = await qqRequest<{ id?: string }>(settings, "POST", path, body);
    return answer.id ? { messageId: answer.id } : {};
  } catch (error) {
    if (!(error instanceof QqApiError))
      throw new ChannelSendError(`QQ send failed: ${(error as Error).message}`);
    // The same msg_id + msg_seq went out before (a resend after a crash): it is delivered, exactly once.
    if (error.code === duplicateSeqCode) return {};
    if (error.status === 429)
      throw new ChannelSendError(`QQ rate limit: ${error.message}`, {
        retryAfterMs: error.retryAfterMs ?? 1000,
        status: 429,
      });
    if (error.status === 0 || error.status >= 500 || error.status === 401)
      throw new ChannelSendError(`QQ send failed: ${error.message}`, { status: error.status });
    throw new ChannelSendError(
      `QQ refused the message: ${error.message}${target.replyToMessageId ? " (replies are allowed within 60 min for direct chats and 5 min for groups, 5 per message)" : " (QQ only allows replies to a user's message)"}`,
      { permanent: true, status: error.status },
    );
  }
}
