import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, ChannelFakeLiveness, FakeIncoming } from "@downcity/core/test";
import { type FakeRequest, writeAnswer } from "./fake-answer.js";
import { type FakeIncomingFile, fakeFileMessage } from "./fake-file-message.js";
import { createFakeImMedia, type FakeImMedia, type FakeResource } from "./fake-im-media.js";
import { cardMarkdown, createFakeImMessages, type FakeImMessages } from "./fake-im-messages.js";
import { serveLongConnection } from "./fake-long-connection.js";
import {
  fakeAppId,
  fakeAppSecret,
  fakeBotOpenId,
  larkCardActionEnvelope,
  larkMessageEnvelope,
} from "./lark-envelope.js";
import { type PushOutcome, postWebhookEvent } from "./post-webhook-event.js";

export {
  encryptLarkBody,
  fakeAppId,
  fakeAppSecret,
  fakeBotOpenId,
  larkCardActionEnvelope,
  larkMessageEnvelope,
  signLarkBody,
} from "./lark-envelope.js";

/** Where the fake pushes events: the SDK's long connection, or a webhook URL with Lark's signature/encryption. */
export type FakeDelivery =
  | { mode: "websocket" }
  | { mode: "webhook"; url: string; encryptKey?: string; verificationToken?: string };

/** The fake Lark/Feishu open platform the tests drive. */
export interface FakeOpenPlatform extends ChannelFake, ChannelFakeLiveness {
  /** `http://127.0.0.1:<port>`, the adapter's `domain`. */
  readonly domain: string;
  /** Sockets accepted on the long connection so far. */
  connectionCount(): number;
  /** Open long-connection sockets right now. */
  openConnections(): number;
  /** Pings received on the long connection. */
  pingCount(): number;
  /** Stops answering pings (a half-open connection: the socket stays up, nothing comes back). */
  answerPings(answer: boolean): void;
  /** The next `count` tenant token requests fail with HTTP 500. */
  failTokenRequests(count: number): void;
  /** The next `count` endpoint discoveries answer `code` (1 = system busy, which the SDK never retries). */
  failEndpoint(count: number, code: number): void;
  /** Invalidates every tenant token issued so far (as an expiry or a secret reset would). */
  revokeTokens(): void;
  /** Closes every long-connection socket abruptly. */
  dropConnections(): void;
  /** Delivers a raw event envelope (any event type) and reports the ack. */
  deliverEnvelope(envelope: Record<string, unknown>, timeoutMs?: number): Promise<boolean>;
  /** The request headers of every send, for checks on what the adapter put on the wire. */
  sendRequests(): Array<{ path: string; authorization: string | undefined; body: Record<string, unknown> }>;
  /** Every message the bot sent (cards, texts, images, files), with edits and deletion. */
  messages: FakeImMessages["messages"];
  /** The next `count` card sends are refused as invalid card content (230099). */
  refuseNextCards: FakeImMessages["refuseNextCards"];
  uploads: FakeImMedia["uploads"];
  reactions: FakeImMedia["reactions"];
  downloads: FakeImMedia["downloads"];
  /**
   * Delivers a user's message of any type (`content` as Lark puts it in the event), whose `resources`
   * (file key to bytes) the resource API then serves; returns the ack and the message id.
   */
  deliverMessage(message: RichIncoming): Promise<{ acked: boolean; eventId: string; messageId: string }>;
  /** A user presses a button of a sent card: a `card.action.trigger` callback, and what the adapter answered. */
  pressButton(press: {
    messageId: string;
    chatId: string;
    userId: string;
    value: Record<string, unknown>;
  }): Promise<{ acked: boolean; answer: Record<string, unknown> | undefined }>;
}

/** A user's message of any type, for `deliverMessage`. */
export interface RichIncoming extends Omit<FakeIncoming, "text" | "nonText"> {
  messageType: string;
  content: Record<string, unknown>;
  resources?: Record<string, FakeResource>;
  parentId?: string;
}

const readBody = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
  });

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
};

const place = (message: { chatId: string; threadId?: string | undefined }) => ({
  chatId: message.chatId,
  ...(message.threadId ? { threadId: message.threadId } : {}),
});

/**
 * Starts the fake open platform on 127.0.0.1:0, speaking the documented wire format to the official SDK: tenant
 * token, bot info, endpoint discovery and the long connection (or signed, encrypted webhook posts); send and
 * reply with `uuid` dedupe (text, cards checked as Card JSON 2.0, images, files); message reads, card PATCH and
 * DELETE; chat info; message resources; image and file uploads; reactions; and `card.action.trigger` callbacks
 * whose answer (a toast) it reports. Refusals carry Lark's codes (230011 gone, 230099 bad card, 234006 too
 * large, 234011 not an image, 231001 unknown emoji, 99991400 rate limit, 99991663 bad token, ...).
 */
export async function startFakeOpenPlatform(
  options: { delivery?: FakeDelivery } = {},
): Promise<FakeOpenPlatform> {
  const delivery = options.delivery ?? { mode: "websocket" };
  const tokens = new Set<string>();
  const requests: Array<{ path: string; authorization: string | undefined; body: Record<string, unknown> }> =
    [];
  const im = createFakeImMessages({ uploaded: (key) => media.uploaded(key) });
  const media = createFakeImMedia({ hasMessage: im.hasMessage, botOpenId: fakeBotOpenId });
  let failTokens = 0;
  let endpointFailures = 0;
  let endpointCode = 0;
  let origin = "";

  const authorized = (request: IncomingMessage) => {
    const header = request.headers.authorization ?? "";
    return tokens.has(header.replace(/^Bearer /, ""));
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(request);
    const contentType = request.headers["content-type"] ?? "";
    const body =
      raw.length > 0 && contentType.startsWith("application/json")
        ? (JSON.parse(raw.toString("utf8")) as Record<string, unknown>)
        : {};
    if (url.pathname === "/open-apis/auth/v3/tenant_access_token/internal") {
      if (failTokens > 0) {
        failTokens -= 1;
        json(response, 500, { code: 1, msg: "internal error" });
        return;
      }
      if (body.app_id !== fakeAppId || body.app_secret !== fakeAppSecret) {
        json(response, 200, { code: 10014, msg: "app secret invalid" });
        return;
      }
      const token = `t-${randomUUID()}`;
      tokens.add(token);
      json(response, 200, { code: 0, msg: "ok", tenant_access_token: token, expire: 7200 });
      return;
    }
    if (url.pathname === "/callback/ws/endpoint") {
      if (endpointFailures > 0) {
        endpointFailures -= 1;
        json(response, 200, { code: endpointCode, msg: "system busy", data: {} });
        return;
      }
      if (body.AppID !== fakeAppId || body.AppSecret !== fakeAppSecret) {
        json(response, 200, { code: 403, msg: "forbidden", data: {} });
        return;
      }
      json(response, 200, {
        code: 0,
        data: {
          URL: `${origin.replace("http", "ws")}/ws?device_id=d1&service_id=7`,
          ClientConfig: { PingInterval: 1, ReconnectCount: -1, ReconnectInterval: 1, ReconnectNonce: 0 },
        },
      });
      return;
    }
    if (!authorized(request)) {
      json(response, 400, { code: 99991663, msg: "Invalid access token for authorization" });
      return;
    }
    if (url.pathname === "/open-apis/bot/v3/info") {
      json(response, 200, { code: 0, msg: "ok", bot: { open_id: fakeBotOpenId, app_name: "Downcity" } });
      return;
    }
    if (request.method === "POST" && /^\/open-apis\/im\/v1\/messages(\/[^/]+\/reply)?$/.test(url.pathname))
      requests.push({ path: url.pathname + url.search, authorization: request.headers.authorization, body });
    const fakeRequest: FakeRequest = { method: request.method ?? "GET", url, raw, contentType, json: body };
    const answer = im.route(fakeRequest) ?? (await media.route(fakeRequest));
    writeAnswer(response, answer ?? { status: 404, body: { code: 404, msg: "not found" } });
  });

  const longConnection = serveLongConnection(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Where each pushed user message was, for the typing reactions put on it.
  const delivered = new Map<string, { chatId: string; threadId?: string }>();
  // The platform knows every message it pushed: replies, resources and `GET im/v1/messages/:id` find it.
  const noteIncoming = (
    messageId: string,
    message: FakeIncoming | RichIncoming,
    envelope: Record<string, unknown>,
  ) => {
    delivered.set(messageId, place(message));
    const sent = (envelope.event as { message: { message_type: string; content: string } }).message;
    im.noteIncoming(messageId, place(message), message.chatType === "direct" ? "p2p" : "group", {
      msgType: sent.message_type,
      content: sent.content,
      senderId: message.userId,
    });
  };

  const push = async (envelope: Record<string, unknown>, timeoutMs = 10000): Promise<PushOutcome> => {
    const deadline = Date.now() + timeoutMs;
    const payload = JSON.stringify(envelope);
    if (delivery.mode === "webhook") return postWebhookEvent(delivery, payload, deadline);
    return longConnection.push(payload, deadline);
  };

  const deliverRich = async (message: RichIncoming) => {
    const eventId = message.eventId ?? `ev_${randomUUID().replaceAll("-", "")}`;
    const messageId = `om_${eventId}`;
    for (const [key, resource] of Object.entries(message.resources ?? {}))
      media.addResource(messageId, key, resource);
    const envelope = larkMessageEnvelope({
      ...message,
      text: "",
      eventId,
      messageId,
      botOpenId: fakeBotOpenId,
      raw: { messageType: message.messageType, content: message.content },
    });
    noteIncoming(messageId, message, envelope);
    return { acked: (await push(envelope)).acked, eventId, messageId };
  };

  return {
    domain: origin,
    async deliver(message, deliverOptions) {
      const eventId = message.eventId ?? `ev_${randomUUID().replaceAll("-", "")}`;
      // Files come with the suite's media cases (core's `FakeIncoming.files`).
      const { files } = message as { files?: FakeIncomingFile[] };
      if (files?.length) {
        const { text, ...rest } = message;
        const rich = await deliverRich({ ...rest, eventId, ...fakeFileMessage(text, files, eventId) });
        return { acked: rich.acked, eventId };
      }
      const messageId = `om_${eventId}`;
      const envelope = larkMessageEnvelope({ ...message, eventId, messageId, botOpenId: fakeBotOpenId });
      noteIncoming(messageId, message, envelope);
      return { acked: (await push(envelope, deliverOptions?.timeoutMs)).acked, eventId };
    },
    deliverMessage: (message) => deliverRich(message),
    async pressButton(press) {
      const envelope = larkCardActionEnvelope({
        ...press,
        eventId: `ev_${randomUUID().replaceAll("-", "")}`,
      });
      const outcome = await push(envelope);
      return { acked: outcome.acked, answer: outcome.answer };
    },
    deliverEnvelope: async (envelope, timeoutMs) => (await push(envelope, timeoutMs)).acked,
    sent: im.sent,
    messages: im.messages,
    refuseNextCards: im.refuseNextCards,
    // A bad card is the formatted message Lark refuses (230099): the reply continues as plain text.
    refuseNextFormatted: () => im.refuseNextCards(1),
    uploads: media.uploads,
    reactions: media.reactions,
    // Typing on Feishu is a reaction on the user's message: its chat and thread are the message's.
    typingSeen: () =>
      media.reactions().flatMap((reaction) => {
        const where = delivered.get(reaction.messageId);
        return where
          ? [{ chatId: where.chatId, ...(where.threadId ? { threadId: where.threadId } : {}) }]
          : [];
      }),
    sentMessage(messageId) {
      const message = im.messages().find((candidate) => candidate.messageId === messageId);
      if (!message) return undefined;
      const text = cardMarkdown(message.content) ?? String(message.content.text ?? "");
      return { text, deleted: message.deleted };
    },
    downloads: media.downloads,
    sendRequests: () => [...requests],
    rateLimitNextSends: im.rateLimitNextSends,
    connectionCount: longConnection.connectionCount,
    openConnections: longConnection.openConnections,
    pingCount: longConnection.pingCount,
    answerPings: longConnection.answerPings,
    failTokenRequests(count) {
      failTokens = count;
    },
    failEndpoint(count, code) {
      endpointFailures = count;
      endpointCode = code;
    },
    revokeTokens() {
      tokens.clear();
    },
    dropConnections: longConnection.dropConnections,
    async close() {
      await longConnection.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
