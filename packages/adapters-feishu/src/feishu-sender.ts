import { createHash } from "node:crypto";
import { ChannelSendError, type ChannelSendResult, type ChannelTarget } from "@downcity/core";
import type { Client } from "@larksuiteoapi/node-sdk";
import { FeishuHttpError } from "./fetch-http-instance.js";

/** Lark answers these codes when the tenant token is stale: a fresh token fixes it. */
const staleTokenCodes = new Set([99991661, 99991663, 99991668, 99991671]);
/** Lark's frequency-limit code (it comes with HTTP 400 or 429). */
const rateLimitCode = 99991400;

/** The `uuid` Lark dedupes a send by (≤ 50 characters): the outbox key itself, or a stable digest of a longer one. */
export function sendUuid(idempotencyKey: string): string {
  if (idempotencyKey.length <= 50 && /^[\x21-\x7e]+$/.test(idempotencyKey)) return idempotencyKey;
  return `dc-${createHash("sha256").update(idempotencyKey).digest("base64url").slice(0, 43)}`;
}

/** What sending needs: the SDK client and a way to drop its cached token. */
export interface FeishuSenderOptions {
  client: Client;
  /** Forgets the cached tenant token (after Lark called it invalid). */
  resetToken(): void;
}

/** One Lark message body: its `msg_type` and its `content` (a JSON string, as the API takes it). */
export interface FeishuMessageBody {
  msgType: "text" | "interactive" | "image" | "file";
  content: string;
}

/**
 * Sends one message: a reply (`im/v1/messages/:id/reply`, in the thread when the target has one) when the
 * target names the message it answers, else a new message in the chat; always with `uuid`, so a retry after
 * a crash is deduplicated by Lark itself. Failures are `ChannelSendError`s (see `feishuSendError`).
 */
export async function sendFeishuMessage(
  options: FeishuSenderOptions,
  target: ChannelTarget,
  body: FeishuMessageBody,
  uuid: string,
): Promise<ChannelSendResult> {
  const { content, msgType: msg_type } = body;
  let response: { code?: number; msg?: string; data?: { message_id?: string } };
  try {
    response = target.replyToMessageId
      ? await options.client.im.v1.message.reply({
          path: { message_id: target.replyToMessageId },
          data: { content, msg_type, uuid, ...(target.threadId ? { reply_in_thread: true } : {}) },
        })
      : await options.client.im.v1.message.create({
          params: { receive_id_type: "chat_id" },
          data: { receive_id: target.chatId, content, msg_type, uuid },
        });
  } catch (error) {
    throw feishuSendError(options, error);
  }
  checkAnswer(options, response);
  const messageId = response.data?.message_id;
  return messageId ? { messageId } : {};
}

/** Throws the `ChannelSendError` for an answer whose `code` is not 0 (Lark says some failures with HTTP 200). */
export function checkAnswer(options: FeishuSenderOptions, response: { code?: number; msg?: string }): void {
  if (response.code !== undefined && response.code !== 0)
    throw feishuSendError(
      options,
      new FeishuHttpError(200, response.code, `Lark answered code ${response.code}: ${response.msg ?? ""}`),
    );
}

/**
 * What a failed call to Lark means for the outbox: a rate limit waits as told, a stale token is dropped and
 * retried, an unreachable or failing platform is retried, and any other refusal is permanent.
 */
export function feishuSendError(options: FeishuSenderOptions, error: unknown): ChannelSendError {
  if (!(error instanceof FeishuHttpError))
    // Token fetch failures and other client errors: retryable, with only the message (never the request).
    return new ChannelSendError(
      `Lark send failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  const { status, code } = error;
  if (status === 429 || code === rateLimitCode)
    return new ChannelSendError(`Lark rate limit: ${error.message}`, {
      retryAfterMs: error.retryAfterMs ?? 1000,
      status: status || 429,
    });
  if (code !== undefined && staleTokenCodes.has(code)) {
    options.resetToken();
    return new ChannelSendError(`Lark rejected the tenant token, fetching a new one: ${error.message}`, {
      status,
    });
  }
  if (status === 0 || status >= 500)
    return new ChannelSendError(`Lark send failed: ${error.message}`, { status });
  return new ChannelSendError(`Lark refused the message: ${error.message}`, { permanent: true, status });
}
