import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, FakeSent } from "@downcity/core/test";
import { WebSocket, WebSocketServer } from "ws";
import {
  encryptLarkBody,
  fakeAppId,
  fakeAppSecret,
  fakeBotOpenId,
  larkMessageEnvelope,
  signLarkBody,
} from "./lark-envelope.js";
import { decodeLarkFrame, encodeLarkFrame, frameHeader, type LarkFrame } from "./lark-frame.js";

export {
  encryptLarkBody,
  fakeAppId,
  fakeAppSecret,
  fakeBotOpenId,
  larkMessageEnvelope,
  signLarkBody,
} from "./lark-envelope.js";

/** Where the fake pushes events: the SDK's long connection, or a webhook URL with Lark's signature/encryption. */
export type FakeDelivery =
  | { mode: "websocket" }
  | { mode: "webhook"; url: string; encryptKey?: string; verificationToken?: string };

/** The fake Lark/Feishu open platform the tests drive. */
export interface FakeOpenPlatform extends ChannelFake {
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
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => resolve(body));
  });

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
};

/** Starts the fake open platform on 127.0.0.1:0: token, bot info, endpoint discovery, long connection, send/reply with uuid dedupe. */
export async function startFakeOpenPlatform(
  options: { delivery?: FakeDelivery } = {},
): Promise<FakeOpenPlatform> {
  const delivery = options.delivery ?? { mode: "websocket" };
  const tokens = new Set<string>();
  const sent: FakeSent[] = [];
  const requests: Array<{ path: string; authorization: string | undefined; body: Record<string, unknown> }> =
    [];
  const byUuid = new Map<string, string>();
  const messages = new Map<string, { chatId: string; threadId?: string }>();
  const sockets = new Set<WebSocket>();
  const pendingAcks = new Map<string, (acked: boolean | "answered-failure") => void>();
  // Lark waits about 3 s for an event's ack before pushing it again.
  const ackTimeoutMs = 3000;
  let connections = 0;
  let pings = 0;
  let pongs = true;
  let failTokens = 0;
  let endpointFailures = 0;
  let endpointCode = 0;
  let limited = 0;
  let retryAfterMs = 0;
  let counter = 0;
  let origin = "";

  const authorized = (request: IncomingMessage) => {
    const header = request.headers.authorization ?? "";
    return tokens.has(header.replace(/^Bearer /, ""));
  };

  const send = (
    response: ServerResponse,
    body: Record<string, unknown>,
    place: { chatId: string; threadId?: string },
  ) => {
    if (limited > 0) {
      limited -= 1;
      json(
        response,
        429,
        { code: 99991400, msg: "request trigger frequency limit" },
        {
          "x-ogw-ratelimit-reset": String(retryAfterMs / 1000),
        },
      );
      return;
    }
    const uuid = typeof body.uuid === "string" ? body.uuid : undefined;
    if (uuid !== undefined && uuid.length > 50) {
      json(response, 400, { code: 99992402, msg: "field validation failed: uuid longer than 50" });
      return;
    }
    const known = uuid ? byUuid.get(uuid) : undefined;
    if (known) {
      json(response, 200, { code: 0, msg: "success", data: { message_id: known } });
      return;
    }
    const messageId = `om_sent_${++counter}`;
    if (uuid) byUuid.set(uuid, messageId);
    messages.set(messageId, place);
    const content = JSON.parse(String(body.content ?? "{}")) as { text?: string };
    sent.push({
      chatId: place.chatId,
      ...(place.threadId ? { threadId: place.threadId } : {}),
      text: content.text ?? "",
      ...(uuid ? { idempotencyKey: uuid } : {}),
    });
    json(response, 200, { code: 0, msg: "success", data: { message_id: messageId, chat_id: place.chatId } });
  };

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const raw = await readBody(request);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
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
    requests.push({ path: url.pathname + url.search, authorization: request.headers.authorization, body });
    if (url.pathname === "/open-apis/im/v1/messages" && request.method === "POST") {
      if (url.searchParams.get("receive_id_type") !== "chat_id") {
        json(response, 400, { code: 230001, msg: "invalid receive_id_type" });
        return;
      }
      send(response, body, { chatId: String(body.receive_id) });
      return;
    }
    const reply = /^\/open-apis\/im\/v1\/messages\/([^/]+)\/reply$/.exec(url.pathname);
    if (reply && request.method === "POST") {
      const parent = messages.get(decodeURIComponent(reply[1] ?? ""));
      if (!parent) {
        json(response, 400, { code: 230011, msg: "the message was withdrawn or does not exist" });
        return;
      }
      send(response, body, parent);
      return;
    }
    json(response, 404, { code: 404, msg: "not found" });
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (request, socket, head) => {
    if (!request.url?.startsWith("/ws?")) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      connections += 1;
      sockets.add(ws);
      ws.on("close", () => sockets.delete(ws));
      ws.on("message", (data: Buffer) => {
        const frame = decodeLarkFrame(new Uint8Array(data));
        const type = frameHeader(frame, "type");
        if (frame.method === 0 && type === "ping") {
          pings += 1;
          if (!pongs) return;
          const pong: LarkFrame = {
            SeqID: 0,
            LogID: 0,
            service: frame.service,
            method: 0,
            headers: [{ key: "type", value: "pong" }],
            payload: new TextEncoder().encode(
              JSON.stringify({
                PingInterval: 1,
                ReconnectCount: -1,
                ReconnectInterval: 1,
                ReconnectNonce: 0,
              }),
            ),
          };
          ws.send(encodeLarkFrame(pong));
          return;
        }
        if (frame.method === 1) {
          const id = frameHeader(frame, "message_id") ?? "";
          const answer = JSON.parse(new TextDecoder().decode(frame.payload ?? new Uint8Array())) as {
            code?: number;
          };
          pendingAcks.get(id)?.(answer.code === 200 ? true : "answered-failure");
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const openSocket = async (deadline: number): Promise<WebSocket | undefined> => {
    for (;;) {
      // The newest connection is the live one: an older socket may be one the client already abandoned.
      const socket = [...sockets].reverse().find((candidate) => candidate.readyState === WebSocket.OPEN);
      if (socket) return socket;
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const deliverEnvelope = async (envelope: Record<string, unknown>, timeoutMs = 10000): Promise<boolean> => {
    const deadline = Date.now() + timeoutMs;
    const payload = JSON.stringify(envelope);
    if (delivery.mode === "webhook") {
      const encrypted = delivery.encryptKey
        ? JSON.stringify({ encrypt: encryptLarkBody(delivery.encryptKey, payload) })
        : payload;
      const timestamp = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (delivery.encryptKey) {
        headers["x-lark-request-timestamp"] = timestamp;
        headers["x-lark-request-nonce"] = nonce;
        headers["x-lark-signature"] = signLarkBody(timestamp, nonce, delivery.encryptKey, encrypted);
      }
      for (;;) {
        try {
          const response = await fetch(delivery.url, {
            method: "POST",
            body: encrypted,
            headers,
            signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
          });
          await response.text();
          return response.status === 200;
        } catch (error) {
          // The listener may still be starting; a refused connection is retried until the deadline.
          if (
            (error as { cause?: { code?: string } }).cause?.code !== "ECONNREFUSED" ||
            Date.now() > deadline
          )
            return false;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    }
    // Like the real platform, an event without an ack (its socket closed, or no answer within the ack timeout) is
    // pushed again, on the newest connection.
    for (;;) {
      const socket = await openSocket(deadline);
      if (!socket) return false;
      const outcome = await pushEvent(socket, payload, Math.min(deadline, Date.now() + ackTimeoutMs));
      if (typeof outcome === "boolean" && (outcome || Date.now() >= deadline)) return outcome;
      if (outcome === "answered-failure") return false;
    }
  };

  const pushEvent = (socket: WebSocket, payload: string, deadline: number) => {
    const id = randomUUID();
    const frame: LarkFrame = {
      SeqID: 0,
      LogID: 0,
      service: 7,
      method: 1,
      headers: [
        { key: "type", value: "event" },
        { key: "message_id", value: id },
        { key: "sum", value: "1" },
        { key: "seq", value: "0" },
        { key: "trace_id", value: randomUUID() },
      ],
      payload: new TextEncoder().encode(payload),
    };
    return new Promise<boolean | "closed" | "answered-failure">((resolve) => {
      const finish = (outcome: boolean | "closed" | "answered-failure") => {
        clearTimeout(timer);
        pendingAcks.delete(id);
        socket.off("close", onClose);
        resolve(outcome);
      };
      const onClose = () => finish("closed");
      const timer = setTimeout(() => finish(false), Math.max(1, deadline - Date.now()));
      pendingAcks.set(id, finish);
      socket.on("close", onClose);
      socket.send(encodeLarkFrame(frame));
    });
  };

  return {
    domain: origin,
    async deliver(message, deliverOptions) {
      const eventId = message.eventId ?? `ev_${randomUUID().replaceAll("-", "")}`;
      const messageId = `om_${eventId}`;
      messages.set(messageId, {
        chatId: message.chatId,
        ...(message.threadId ? { threadId: message.threadId } : {}),
      });
      const envelope = larkMessageEnvelope({ ...message, eventId, messageId, botOpenId: fakeBotOpenId });
      return { acked: await deliverEnvelope(envelope, deliverOptions?.timeoutMs), eventId };
    },
    deliverEnvelope,
    sent: () => [...sent],
    sendRequests: () => [...requests],
    rateLimitNextSends(count, ms) {
      limited = count;
      retryAfterMs = ms;
    },
    connectionCount: () => connections,
    openConnections: () => [...sockets].filter((socket) => socket.readyState === WebSocket.OPEN).length,
    pingCount: () => pings,
    answerPings(answer) {
      pongs = answer;
    },
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
    dropConnections() {
      for (const socket of sockets) socket.terminate();
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      for (const resolve of pendingAcks.values()) resolve("answered-failure");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
