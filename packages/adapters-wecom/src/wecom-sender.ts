import {
  type ChannelMessage,
  type ChannelMessageFile,
  type ChannelSendResult,
  type ChannelTarget,
  renderPlainText,
} from "@downcity/core";
import { generateReqId, type WSClient } from "@wecom/aibot-node-sdk";
import type { WecomReplyBook, WecomReplyHandle } from "./wecom-reply-book.js";
import { toChannelSendError, wecomErrcode, wecomRateLimitCode } from "./wecom-send-error.js";
import type { WecomSentRecord } from "./wecom-sent-record.js";

/** What sending needs: the reply book, the sent record and the live client. */
export interface WecomSenderSettings {
  book: WecomReplyBook;
  sent: WecomSentRecord;
  client(): WSClient | undefined;
  rateLimitRetryMs: number;
}

const frameOf = (handle: WecomReplyHandle) => ({ headers: { req_id: handle.reqId } });

// Markdown through the callback's req_id (finishing the open "thinking" bubble first), else pushed to the chat.
async function sendMarkdown(
  settings: WecomSenderSettings,
  client: WSClient,
  target: ChannelTarget,
  handle: WecomReplyHandle | undefined,
  markdown: string,
): Promise<string | undefined> {
  if (!handle) {
    await client.sendMessage(target.chatId, { msgtype: "markdown", markdown: { content: markdown } });
    return undefined;
  }
  const streamId = handle.streamOpen && handle.streamId ? handle.streamId : generateReqId("stream");
  await client.replyStream(frameOf(handle), streamId, markdown, true);
  if (target.replyToMessageId) settings.book.update(target.replyToMessageId, { streamOpen: false });
  return streamId;
}

// A refused formatted reply goes again once as plain text (a `text` reply, or plain markdown when pushed).
async function sendText(
  settings: WecomSenderSettings,
  client: WSClient,
  target: ChannelTarget,
  markdown: string,
): Promise<string | undefined> {
  const handle = settings.book.get(target.replyToMessageId);
  const passive = handle && handle.chatId === target.chatId ? handle : undefined;
  try {
    return await sendMarkdown(settings, client, target, passive, markdown);
  } catch (error) {
    const code = wecomErrcode(error);
    if (code === undefined || code === wecomRateLimitCode) throw error;
    const plain = renderPlainText(markdown);
    if (!passive) {
      await client.sendMessage(target.chatId, { msgtype: "markdown", markdown: { content: plain } });
      return undefined;
    }
    if (target.replyToMessageId) settings.book.update(target.replyToMessageId, { streamOpen: false });
    try {
      await client.reply(frameOf(passive), { msgtype: "text", text: { content: plain } });
    } catch (second) {
      const secondCode = wecomErrcode(second);
      if (secondCode === undefined || secondCode === wecomRateLimitCode) throw second;
      // The req_id no longer takes replies (expired): push to the chat instead.
      await client.sendMessage(target.chatId, { msgtype: "markdown", markdown: { content: markdown } });
    }
    return undefined;
  }
}

async function sendFile(
  client: WSClient,
  target: ChannelTarget,
  handle: WecomReplyHandle | undefined,
  file: ChannelMessageFile,
): Promise<string> {
  const type = file.mediaType.startsWith("image/") ? "image" : "file";
  const uploaded = await client.uploadMedia(Buffer.from(file.data), { type, filename: file.name });
  if (handle) await client.replyMedia(frameOf(handle), type, uploaded.media_id);
  else await client.sendMediaMessage(target.chatId, type, uploaded.media_id);
  return uploaded.media_id;
}

/**
 * Sends one outbox message: its text as markdown (through the user message's req_id when there is
 * one, finishing the "thinking" bubble; otherwise pushed with `aibot_send_msg`), then each file
 * uploaded over the connection. Each part is recorded under the idempotency key once WeCom confirmed
 * it, so a retry or replay sends only what is missing.
 */
export async function sendWecomMessage(
  settings: WecomSenderSettings,
  target: ChannelTarget,
  message: ChannelMessage,
  key: string,
): Promise<ChannelSendResult> {
  const client = settings.client();
  const handle = settings.book.get(target.replyToMessageId);
  const passive = handle && handle.chatId === target.chatId ? handle : undefined;
  let messageId: string | undefined;
  try {
    if (!client?.isConnected) throw new Error("the WeCom connection is not up");
    if (message.text.trim()) {
      const done = settings.sent.sent(`${key}#text`);
      messageId = done ? done.messageId : await sendText(settings, client, target, message.text);
      if (!done) await settings.sent.record(`${key}#text`, messageId);
    }
    for (const [index, file] of (message.attachments ?? []).entries()) {
      const part = `${key}#file${index}`;
      if (settings.sent.sent(part)) continue;
      const mediaId = await sendFile(client, target, passive, file);
      await settings.sent.record(part, mediaId);
      messageId ??= mediaId;
    }
  } catch (error) {
    throw toChannelSendError(error, settings.rateLimitRetryMs);
  }
  return messageId ? { messageId } : {};
}
