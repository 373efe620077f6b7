import { ChannelSendError } from "@downcity/core";
import { QqApiError } from "./qq-api-error.js";

/** The platform's answer to a msg_id + msg_seq pair it has already accepted: delivered before. */
export const duplicateSeqCode = 40054005;
/** "不允许发送 markdown content": the bot has no permission for native markdown. */
export const markdownDeniedCode = 50056;
/** Markdown the platform could not take in this message ("markdown 有空值", "无效的 markdown content"). */
const markdownInvalidCodes = new Set([50041, 50055]);
/** The reply target is unknown, too old, or answered five times already. */
const replyRefusedCodes = new Set([40034024, 40034025, 40034026, 304026, 304027]);
/** "主动消息失败, 无权限" and kin: the bot may not send proactive messages (or used its monthly four). */
const proactiveRefusedCodes = new Set([40034102, 40034105]);

const isApiError = (error: unknown): error is QqApiError => error instanceof QqApiError;

/** True when QQ refused a passive reply as a reply (window passed, unknown msg_id, five replies used). */
export function isReplyRefused(error: unknown): boolean {
  return (
    isApiError(error) &&
    ((error.code !== undefined && replyRefusedCodes.has(error.code)) ||
      /reply msg exceed limit/i.test(error.message))
  );
}

/** True when QQ refused a message without msg_id because the bot may not send proactively. */
export function isProactiveRefused(error: unknown): boolean {
  return (
    isApiError(error) &&
    ((error.code !== undefined && proactiveRefusedCodes.has(error.code)) || /主动消息/.test(error.message))
  );
}

/** True when QQ refused this message's markdown; `permanently` when the bot lacks the permission. */
export function markdownRefusal(error: unknown): "permission" | "content" | undefined {
  if (!isApiError(error) || error.code === undefined) return undefined;
  if (error.code === markdownDeniedCode) return "permission";
  return markdownInvalidCodes.has(error.code) ? "content" : undefined;
}

/** Turns a failed call into the error the outbox understands: retry after a wait, retry, or give up. */
export function toChannelSendError(error: unknown): ChannelSendError {
  if (error instanceof ChannelSendError) return error;
  if (!isApiError(error)) return new ChannelSendError(`QQ send failed: ${(error as Error).message}`);
  if (error.status === 429)
    return new ChannelSendError(`QQ rate limit: ${error.message}`, {
      retryAfterMs: error.retryAfterMs ?? 1000,
      status: 429,
    });
  if (error.status === 0 || error.status >= 500 || error.status === 401)
    return new ChannelSendError(`QQ send failed: ${error.message}`, { status: error.status });
  return new ChannelSendError(`QQ refused the message: ${error.message}`, {
    permanent: true,
    status: error.status,
  });
}
