import type { FakeSent } from "@downcity/core/test";
import { type FakeAnswer, type FakeRequest, ok, refuse } from "./fake-answer.js";

/** A message the bot sent, as the fake keeps it. */
export interface FakeBotMessage {
  messageId: string;
  chatId: string;
  threadId?: string;
  msgType: string;
  /** The parsed `content`: `{ text }`, a card, `{ image_key }`, `{ file_key }`. */
  content: Record<string, unknown>;
  uuid?: string;
  /** Replied to (`im/v1/messages/:id/reply`), and which message. */
  replyTo?: string;
  deleted: boolean;
  /** Every card a PATCH put in place, in order. */
  edits: Array<Record<string, unknown>>;
}

/** Lark's documented ceiling for a card's content (about 30 KB of JSON). */
const cardMaxBytes = 30 * 1024;

/** The Markdown of a card's markdown elements (what a reader sees), or undefined when the card is invalid. */
export function cardMarkdown(card: Record<string, unknown>): string | undefined {
  const body = card.body as { elements?: unknown } | undefined;
  if (card.schema !== "2.0" || !Array.isArray(body?.elements)) return undefined;
  const texts: string[] = [];
  for (const element of body.elements as Array<Record<string, unknown>>) {
    if (element.tag === "markdown") {
      if (typeof element.content !== "string") return undefined;
      texts.push(element.content);
    } else if (element.tag !== "column_set") return undefined;
  }
  return texts.join("\n");
}

const parseContent = (content: unknown): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(String(content));
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** An uploaded file as an image or file message shows it. */
export type UploadedFile = { name?: string; mediaType?: string; data: Uint8Array };

/** The fake's message endpoints: send, reply, patch (card update), delete, and chat info. */
export function createFakeImMessages(options: { uploaded(key: string): UploadedFile | undefined }) {
  const places = new Map<string, { chatId: string; threadId?: string }>();
  const chats = new Map<string, "p2p" | "group">();
  const incoming = new Map<string, { msgType: string; content: string; senderId: string }>();
  const byUuid = new Map<string, string>();
  const sentMessages: FakeBotMessage[] = [];
  let counter = 0;
  let limited = 0;
  let retryAfterMs = 0;
  let refusedCards = 0;

  const checkCard = (content: Record<string, unknown> | undefined, raw: unknown): FakeAnswer | undefined => {
    if (String(raw).length > cardMaxBytes)
      return refuse(230025, "The length of the message content reaches its limit");
    if (!content || cardMarkdown(content) === undefined)
      return refuse(
        230099,
        "Failed to create card content, ext=ErrCode: 200621; ErrMsg: parse card json err",
      );
    return undefined;
  };

  const send = (
    body: Record<string, unknown>,
    place: { chatId: string; threadId?: string },
    replyTo?: string,
  ) => {
    if (limited > 0) {
      limited -= 1;
      return {
        status: 429,
        body: { code: 99991400, msg: "request trigger frequency limit" },
        headers: { "x-ogw-ratelimit-reset": String(retryAfterMs / 1000) },
      };
    }
    const uuid = typeof body.uuid === "string" ? body.uuid : undefined;
    if (uuid !== undefined && uuid.length > 50)
      return refuse(99992402, "field validation failed: uuid longer than 50");
    const known = uuid ? byUuid.get(uuid) : undefined;
    if (known) return ok({ message_id: known });
    const msgType = String(body.msg_type ?? "");
    const content = parseContent(body.content);
    if (msgType === "interactive") {
      if (refusedCards > 0) {
        refusedCards -= 1;
        return refuse(
          230099,
          "Failed to create card content, ext=ErrCode: 11310; ErrMsg: card render failed",
        );
      }
      const problem = checkCard(content, body.content);
      if (problem) return problem;
    } else if (!content || !["text", "image", "file"].includes(msgType))
      return refuse(
        230001,
        "Your request contains an invalid request parameter, ext=invalid msg_type or content",
      );
    const messageId = `om_sent_${++counter}`;
    if (uuid) byUuid.set(uuid, messageId);
    places.set(messageId, place);
    sentMessages.push({
      messageId,
      ...place,
      msgType,
      content: content ?? {},
      ...(uuid ? { uuid } : {}),
      ...(replyTo ? { replyTo } : {}),
      deleted: false,
      edits: [],
    });
    return ok({ message_id: messageId, chat_id: place.chatId, msg_type: msgType });
  };

  const patch = (messageId: string, body: Record<string, unknown>): FakeAnswer => {
    const message = sentMessages.find((candidate) => candidate.messageId === messageId);
    if (!message || message.deleted) return refuse(230011, "The message was withdrawn or does not exist");
    if (message.msgType !== "interactive")
      return refuse(
        230001,
        "Your request contains an invalid request parameter, ext=only cards can be updated",
      );
    const content = parseContent(body.content);
    const problem = checkCard(content, body.content);
    if (problem) return problem;
    message.content = content ?? {};
    message.edits.push(message.content);
    return ok({});
  };

  // `GET im/v1/messages/:id`: the message as `items[0]`, its content as the JSON string Lark stores.
  const getMessage = (messageId: string): FakeAnswer => {
    const sent = sentMessages.find((candidate) => candidate.messageId === messageId && !candidate.deleted);
    const user = incoming.get(messageId);
    const place = places.get(messageId);
    if (!place || (!sent && !user)) return refuse(230011, "The message was withdrawn or does not exist");
    const item = sent
      ? {
          msg_type: sent.msgType,
          content: JSON.stringify(sent.content),
          sender: { id: "cli_fake", id_type: "app_id", sender_type: "app" },
        }
      : {
          msg_type: user?.msgType,
          content: user?.content,
          sender: { id: user?.senderId, id_type: "open_id", sender_type: "user" },
        };
    return ok({
      items: [
        {
          message_id: messageId,
          chat_id: place.chatId,
          msg_type: item.msg_type,
          body: { content: item.content },
          sender: item.sender,
        },
      ],
    });
  };

  const route = (request: FakeRequest): FakeAnswer | undefined => {
    const { method, url, json } = request;
    if (url.pathname === "/open-apis/im/v1/messages" && method === "POST") {
      if (url.searchParams.get("receive_id_type") !== "chat_id")
        return refuse(230001, "invalid receive_id_type");
      return send(json, { chatId: String(json.receive_id) });
    }
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(url.pathname);
    if (reply && method === "POST") {
      const id = decodeURIComponent(reply[1] ?? "");
      const parent = places.get(id);
      if (!parent) return refuse(230011, "the message was withdrawn or does not exist");
      return send(json, parent, id);
    }
    const one = /^\/open-apis\/im\/v1\/messages\/([^/]+)$/.exec(url.pathname);
    if (one && method === "PATCH") return patch(decodeURIComponent(one[1] ?? ""), json);
    if (one && method === "GET") return getMessage(decodeURIComponent(one[1] ?? ""));
    if (one && method === "DELETE") {
      const message = sentMessages.find(
        (candidate) => candidate.messageId === decodeURIComponent(one[1] ?? ""),
      );
      if (!message || message.deleted) return refuse(230011, "The message was withdrawn or does not exist");
      message.deleted = true;
      return ok({});
    }
    const chat = /^\/open-apis\/im\/v1\/chats\/([^/]+)$/.exec(url.pathname);
    if (chat && method === "GET") {
      const mode = chats.get(decodeURIComponent(chat[1] ?? ""));
      if (!mode) return refuse(232011, "operator and chat can NOT be found, the bot is not in the chat");
      return ok({ chat_mode: mode, chat_type: mode === "p2p" ? "p2p" : "private", name: "chat" });
    }
    return undefined;
  };

  return {
    route,
    /** Notes a user's message (so replies and resources find it) and its chat's type. */
    noteIncoming(
      messageId: string,
      place: { chatId: string; threadId?: string },
      chatType: "p2p" | "group",
      body?: { msgType: string; content: string; senderId: string },
    ) {
      places.set(messageId, place);
      chats.set(place.chatId, chatType);
      if (body) incoming.set(messageId, body);
    },
    hasMessage: (messageId: string) => places.has(messageId),
    messages: () => [...sentMessages],
    /**
     * What the platform shows of each message: a card's markdown (its `format` "markdown": the card's
     * markdown element renders it, and the card JSON itself was checked when it was sent), a text as
     * "plain", an image or a file with its uploaded bytes.
     */
    sent(): FakeSent[] {
      return sentMessages.map((message) => {
        const key = message.content.image_key ?? message.content.file_key;
        const file = typeof key === "string" ? options.uploaded(key) : undefined;
        return {
          chatId: message.chatId,
          ...(message.threadId ? { threadId: message.threadId } : {}),
          text:
            message.msgType === "interactive"
              ? (cardMarkdown(message.content) ?? "")
              : typeof message.content.text === "string"
                ? message.content.text
                : "",
          ...(message.uuid ? { idempotencyKey: message.uuid } : {}),
          ...(file ? { files: [file] } : {}),
          ...(message.msgType === "interactive" ? { format: "markdown" as const } : {}),
          ...(message.msgType === "text" ? { format: "plain" as const } : {}),
        };
      });
    },
    rateLimitNextSends(count: number, ms: number) {
      limited = count;
      retryAfterMs = ms;
    },
    refuseNextCards(count: number) {
      refusedCards = count;
    },
  };
}

/** The fake's message endpoints. */
export type FakeImMessages = ReturnType<typeof createFakeImMessages>;
