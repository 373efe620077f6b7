import { createCipheriv, createHash, randomBytes } from "node:crypto";
import type { FakeIncoming } from "@downcity/core/test";

/** Credentials the fake accepts (the `cli_` + 16 hex format the SDK insists on). */
export const fakeAppId = "cli_a1b2c3d4e5f60718";
export const fakeAppSecret = "fake-app-secret-0123456789";
export const fakeBotOpenId = "ou_bot0000000000000000000000000001";

/** Builds the `im.message.receive_v1` envelope a Lark user message arrives in. */
export function larkMessageEnvelope(
  message: FakeIncoming & {
    messageId: string;
    botOpenId: string;
    eventId: string;
    mentionAll?: boolean;
    /** A message of another type than text: its `message_type` and `content` object as Lark sends them. */
    raw?: { messageType: string; content: Record<string, unknown> };
    parentId?: string;
  },
): Record<string, unknown> {
  const mentions: Array<Record<string, unknown>> = [];
  let text = message.text;
  if (message.mentionBot) {
    mentions.push({ key: "@_user_1", id: { open_id: message.botOpenId }, name: "Downcity" });
    text = `@_user_1 ${text}`;
  }
  if (message.mentionAll) text = `@_all ${text}`;
  return {
    schema: "2.0",
    header: {
      event_id: message.eventId,
      event_type: "im.message.receive_v1",
      create_time: String(Date.now()),
      token: "verification-token",
      app_id: fakeAppId,
      tenant_key: "tenant",
    },
    event: {
      sender: { sender_id: { open_id: message.userId, user_id: message.userId }, sender_type: "user" },
      message: {
        message_id: message.messageId,
        chat_id: message.chatId,
        chat_type: message.chatType === "direct" ? "p2p" : "group",
        ...(message.threadId ? { thread_id: message.threadId, root_id: `${message.threadId}-root` } : {}),
        ...(message.parentId ? { parent_id: message.parentId, root_id: message.parentId } : {}),
        // A shared group card is one of the message types the adapter does not read.
        message_type: message.raw?.messageType ?? (message.nonText ? "share_chat" : "text"),
        content: JSON.stringify(
          message.raw?.content ?? (message.nonText ? { chat_id: "oc_shared" } : { text }),
        ),
        ...(mentions.length > 0 ? { mentions } : {}),
      },
    },
  };
}

/** Lark's webhook encryption: base64(iv ‖ AES-256-CBC(sha256(encryptKey), json)). */
export function encryptLarkBody(encryptKey: string, json: string): string {
  const key = createHash("sha256").update(encryptKey).digest();
  const iv = randomBytes(16);
  const cipher = createCipheriv("aes-256-cbc", key, iv);
  return Buffer.concat([iv, cipher.update(json, "utf8"), cipher.final()]).toString("base64");
}

/** Lark's webhook signature: sha256 hex of timestamp + nonce + encryptKey + raw body. */
export function signLarkBody(timestamp: string, nonce: string, encryptKey: string, body: string): string {
  return createHash("sha256")
    .update(timestamp + nonce + encryptKey + body)
    .digest("hex");
}

/**
 * The `card.action.trigger` callback a press of a card button sends (schema 2.0): the operator, the button's
 * `value`, and the card's message and chat under `context`.
 */
export function larkCardActionEnvelope(press: {
  eventId: string;
  messageId: string;
  chatId: string;
  userId: string;
  value: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    schema: "2.0",
    header: {
      event_id: press.eventId,
      token: "verification-token",
      create_time: String(Date.now() * 1000),
      event_type: "card.action.trigger",
      tenant_key: "tenant",
      app_id: fakeAppId,
    },
    event: {
      operator: {
        tenant_key: "tenant",
        user_id: press.userId,
        open_id: press.userId,
        union_id: `on_${press.userId}`,
      },
      token: `c-${press.eventId}`,
      action: { value: press.value, tag: "button" },
      host: "im_message",
      context: { open_message_id: press.messageId, open_chat_id: press.chatId },
    },
  };
}
