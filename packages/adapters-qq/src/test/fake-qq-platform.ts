import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, ChannelFakeLiveness, FakeIncoming } from "@downcity/core/test";
import { WebSocket, WebSocketServer } from "ws";
import { qqSign, qqSigningKeys } from "../qq-signature.js";
import { createFakeQqMediaHost, type FakeQqAttachment } from "./fake-qq-attachment.js";
import { createFakeQqOpenApi, type FakeQqOpenApi } from "./fake-qq-openapi.js";

/** Credentials the fake accepts. */
export const fakeQqAppId = "102000001";
export const fakeQqSecret = "fakeQqClientSecret0123";

/** The adapter options that point a QQ adapter at `fake`: its credentials, API and token endpoints. */
export function fakeQqConnection(fake: { apiBase: string; tokenUrl: string }) {
  return { appId: fakeQqAppId, clientSecret: fakeQqSecret, apiBase: fake.apiBase, tokenUrl: fake.tokenUrl };
}

/** Where the fake pushes events: the gateway, or signed POSTs to a callback URL. */
export type FakeQqDelivery = { mode: "websocket" } | { mode: "webhook"; url: string };

interface Session {
  id: string;
  seq: number;
  /** Every dispatch of the session, replayed on resume from the client's seq. */
  events: Array<{ s: number; payload: Record<string, unknown> }>;
  /** The highest seq the client confirmed (heartbeat `d` or resume `seq`). */
  confirmed: number;
  socket?: WebSocket;
}

/** A message to deliver, with the platform's raw attachments (see `FakeQqAttachment`). */
export type FakeQqIncoming = FakeIncoming & { attachments?: FakeQqAttachment[] };

/** The fake QQ bot platform the tests drive (its send endpoints: `FakeQqOpenApi`). */
export interface FakeQqPlatform
  extends ChannelFake,
    ChannelFakeLiveness,
    Omit<FakeQqOpenApi, "handle" | "received" | "sent" | "rateLimitNextSends" | "refuseNextMarkdown"> {
  deliver(
    message: FakeQqIncoming,
    options?: { timeoutMs?: number },
  ): Promise<{ acked: boolean; eventId: string }>;
  /** Serves `data` at a URL of the fake, as the platform's media hosts serve attachments. */
  hostFile(data: Uint8Array, contentType: string): string;
  /** How many times a hosted file was downloaded. */
  downloads(url: string): number;
  readonly apiBase: string;
  readonly tokenUrl: string;
  /** Gateway connections so far, and how they started. */
  stats(): { connections: number; identifies: number; resumes: Array<{ seq: number }>; heartbeats: number };
  openConnections(): number;
  /** Closes the current connection abruptly (no close frame). */
  dropConnection(): void;
  /** Closes the current connection with a close code (4009 session timed out, 4914 offline, ...). */
  closeWith(code: number): void;
  /** Sends op 7 Reconnect. */
  sendReconnect(): void;
  /** Sends op 9 Invalid Session, and forgets the session unless `resumable`. */
  sendInvalidSession(resumable: boolean): void;
  /** Stops answering heartbeats (a half-open connection). */
  answerHeartbeats(answer: boolean): void;
  /** Re-sends a dispatch already sent (the platform's redelivery), waiting for its confirmation. */
  redeliver(eventId: string, timeoutMs?: number): Promise<boolean>;
  /** The next `count` token requests fail with HTTP 500. */
  failTokenRequests(count: number): void;
  /** Tokens issued so far, with their lifetimes as sent (strings). */
  tokensIssued(): number;
  /** Closes every identify and resume with 4004, whatever the token (credentials revoked in the console). */
  rejectIdentify(reject: boolean): void;
  /** Makes every token issued so far invalid (4004 on identify, 401 on the API). */
  revokeTokens(): void;
}

const json = (
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) => response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => resolve(body));
  });

/**
 * Starts the fake on 127.0.0.1:0: token endpoint, `/gateway`, the websocket gateway (or signed webhook POSTs),
 * the v2 message and file endpoints, and the media URLs of attachments.
 */
export async function startFakeQqPlatform(
  options: { delivery?: FakeQqDelivery; heartbeatIntervalMs?: number; tokenLifetimeSeconds?: number } = {},
): Promise<FakeQqPlatform> {
  const delivery = options.delivery ?? { mode: "websocket" };
  const heartbeatInterval = options.heartbeatIntervalMs ?? 100;
  const tokens = new Set<string>();
  const sessions = new Map<string, Session>();
  const openApi = createFakeQqOpenApi();
  const media = createFakeQqMediaHost(() => origin);
  const dispatches = new Map<string, Record<string, unknown>>();
  const stats = { connections: 0, identifies: 0, resumes: [] as Array<{ seq: number }>, heartbeats: 0 };
  let current: Session | undefined;
  let heartbeats = true;
  let rejectAll = false;
  let failTokens = 0;
  let issued = 0;
  let origin = "";
  const { privateKey } = qqSigningKeys(fakeQqSecret);

  const authorized = (request: IncomingMessage) =>
    tokens.has((request.headers.authorization ?? "").replace(/^QQBot /, ""));

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const file = request.method === "GET" ? media.serve(url.pathname) : undefined;
    if (file)
      return response
        .writeHead(file.status, { "content-type": file.contentType, "content-length": file.data.byteLength })
        .end(file.data);
    const raw = await readBody(request);
    const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    if (url.pathname === "/app/getAppAccessToken") {
      if (failTokens > 0) {
        failTokens -= 1;
        return json(response, 500, { code: 500, message: "internal error" });
      }
      if (body.appId !== fakeQqAppId || body.clientSecret !== fakeQqSecret)
        return json(response, 200, { code: 100016, message: "invalid appid or secret" });
      const token = `qqtok-${randomUUID()}`;
      tokens.add(token);
      issued += 1;
      return json(response, 200, {
        access_token: token,
        expires_in: String(options.tokenLifetimeSeconds ?? 7200),
      });
    }
    if (!authorized(request))
      return json(response, 401, { code: 11244, message: "token not exist or expire" });
    if (url.pathname === "/gateway")
      return json(response, 200, { url: `${origin.replace("http", "ws")}/websocket` });
    const answer = openApi.handle(request.method ?? "GET", url.pathname, body);
    if (answer) return json(response, answer.status, answer.body, answer.headers);
    json(response, 404, { code: 404, message: "not found" });
  });

  const wss = new WebSocketServer({ noServer: true });
  const sendDispatch = (session: Session, entry: { s: number; payload: Record<string, unknown> }) => {
    if (session.socket?.readyState === WebSocket.OPEN)
      session.socket.send(JSON.stringify({ ...entry.payload, s: entry.s }));
  };
  const dispatch = (session: Session, payload: Record<string, unknown>) => {
    const entry = { s: ++session.seq, payload };
    session.events.push(entry);
    sendDispatch(session, entry);
    return entry.s;
  };
  server.on("upgrade", (request, socket, head) => {
    if (!request.url?.startsWith("/websocket")) return socket.destroy();
    wss.handleUpgrade(request, socket, head, (ws) => {
      stats.connections += 1;
      ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: heartbeatInterval } }));
      let session: Session | undefined;
      ws.on("message", (data: Buffer) => {
        const frame = JSON.parse(data.toString("utf8")) as {
          op: number;
          d: Record<string, unknown> | number | null;
        };
        if (frame.op === 1) {
          stats.heartbeats += 1;
          if (session && typeof frame.d === "number")
            session.confirmed = Math.max(session.confirmed, frame.d);
          if (heartbeats) ws.send(JSON.stringify({ op: 11 }));
          return;
        }
        const d = (frame.d ?? {}) as Record<string, unknown>;
        const tokenOk = typeof d.token === "string" && tokens.has(d.token.replace(/^QQBot /, ""));
        if ((frame.op === 2 || frame.op === 6) && (!tokenOk || rejectAll))
          return ws.close(4004, "invalid token");
        if (frame.op === 2) {
          stats.identifies += 1;
          session = { id: randomUUID(), seq: 0, events: [], confirmed: 0, socket: ws };
          sessions.set(session.id, session);
          current = session;
          dispatch(session, {
            op: 0,
            t: "READY",
            d: {
              version: 1,
              session_id: session.id,
              user: { id: "bot", username: "downcity", bot: true },
              shard: [0, 1],
            },
          });
          return;
        }
        if (frame.op === 6) {
          const found = sessions.get(String(d.session_id));
          if (!found) return ws.send(JSON.stringify({ op: 9, d: false }));
          const seq = Number(d.seq);
          stats.resumes.push({ seq });
          session = found;
          session.socket = ws;
          session.confirmed = Math.max(session.confirmed, seq);
          current = session;
          for (const entry of session.events)
            if (entry.s > seq && entry.payload.t !== "READY") sendDispatch(session, entry);
          dispatch(session, { op: 0, t: "RESUMED", d: "" });
        }
      });
      ws.on("close", () => {
        if (session?.socket === ws) delete session.socket;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const waitConfirmed = async (seq: number, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (current && current.confirmed >= seq) return true;
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const waitSession = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!current?.socket && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return current;
  };

  // The suite's files, served by the fake and described as QQ does (`content_type` "file" / "voice" for those).
  const hosted = (files: NonNullable<FakeIncoming["files"]>): FakeQqAttachment[] =>
    files.map((file) => ({
      content_type:
        file.kind === "file"
          ? "file"
          : file.kind === "voice" || file.kind === "audio"
            ? "voice"
            : file.mediaType,
      url: media.host(file.data, file.mediaType),
      size: file.data.byteLength,
      ...(file.name ? { filename: file.name } : {}),
    }));
  const payloadFor = (message: FakeQqIncoming, eventId: string): Record<string, unknown> => {
    const messageId = `msg-${eventId}`;
    openApi.received(messageId);
    const timestamp = new Date().toISOString();
    // A message with neither text nor attachments stands for a kind the open API does not expose.
    const attachments = message.nonText
      ? []
      : [...(message.attachments ?? []), ...hosted(message.files ?? [])];
    if (message.chatType === "direct")
      return {
        op: 0,
        id: eventId,
        t: "C2C_MESSAGE_CREATE",
        d: {
          id: messageId,
          author: { user_openid: message.chatId },
          content: message.nonText ? "" : message.text,
          timestamp,
          attachments,
        },
      };
    return {
      op: 0,
      id: eventId,
      // Only @-messages reach a bot in a group; the platform removes the mention itself.
      t: message.mentionBot ? "GROUP_AT_MESSAGE_CREATE" : "GROUP_MESSAGE_CREATE",
      d: {
        id: messageId,
        author: { member_openid: message.userId },
        group_openid: message.chatId,
        content: message.nonText ? "" : ` ${message.text}`,
        timestamp,
        attachments,
      },
    };
  };

  const post = async (payload: Record<string, unknown>, timeoutMs: number) => {
    if (delivery.mode !== "webhook") return false;
    const body = JSON.stringify(payload);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const response = await fetch(delivery.url, {
          method: "POST",
          body,
          headers: {
            "content-type": "application/json",
            "x-signature-timestamp": timestamp,
            "x-signature-ed25519": qqSign(privateKey, timestamp + body),
            "x-bot-appid": fakeQqAppId,
          },
          signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())),
        });
        await response.text();
        return response.status === 200;
      } catch (error) {
        if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNREFUSED" || Date.now() > deadline)
          return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  };

  const push = async (payload: Record<string, unknown>, timeoutMs: number) => {
    if (delivery.mode === "webhook") return post(payload, timeoutMs);
    const deadline = Date.now() + timeoutMs;
    const session = await waitSession(timeoutMs);
    if (!session) return false;
    const seq = dispatch(session, payload);
    return waitConfirmed(seq, Math.max(1, deadline - Date.now()));
  };

  return {
    apiBase: origin,
    tokenUrl: `${origin}/app/getAppAccessToken`,
    async deliver(message, deliverOptions) {
      const eventId =
        message.eventId ??
        `${message.chatType === "direct" ? "C2C" : "GROUP_AT"}_MESSAGE_CREATE:${randomUUID()}`;
      const payload = payloadFor(message, eventId);
      dispatches.set(eventId, payload);
      return { acked: await push(payload, deliverOptions?.timeoutMs ?? 10_000), eventId };
    },
    async redeliver(eventId, timeoutMs = 10_000) {
      const payload = dispatches.get(eventId);
      if (!payload) throw new Error(`no dispatch ${eventId} to redeliver`);
      return push(payload, timeoutMs);
    },
    sent: () => openApi.sent(),
    sendRequests: () => openApi.sendRequests(),
    uploads: () => openApi.uploads(),
    mediaSent: () => openApi.mediaSent(),
    typingNotices: () => openApi.typingNotices(),
    typingSeen: () => openApi.typingNotices().map(({ chatId }) => ({ chatId })),
    rateLimitNextSends: (count, ms) => openApi.rateLimitNextSends(count, ms),
    refuseNextFormatted: () => openApi.refuseNextMarkdown(),
    allowMarkdown: (allowed) => openApi.allowMarkdown(allowed),
    allowProactive: (allowed) => openApi.allowProactive(allowed),
    failNextUploads: (count) => openApi.failNextUploads(count),
    expireMessage: (messageId) => openApi.expireMessage(messageId),
    hostFile: (data, contentType) => media.host(data, contentType),
    downloads: (url) => media.downloads(url),
    stats: () => ({ ...stats, resumes: [...stats.resumes] }),
    openConnections: () => [...wss.clients].filter((client) => client.readyState === WebSocket.OPEN).length,
    dropConnection() {
      current?.socket?.terminate();
    },
    closeWith(code) {
      current?.socket?.close(code, "closed by the fake");
    },
    sendReconnect() {
      current?.socket?.send(JSON.stringify({ op: 7 }));
    },
    sendInvalidSession(resumable) {
      if (!current?.socket) return;
      if (!resumable) sessions.delete(current.id);
      current.socket.send(JSON.stringify({ op: 9, d: resumable }));
    },
    answerHeartbeats(answer) {
      heartbeats = answer;
    },
    failTokenRequests(count) {
      failTokens = count;
    },
    tokensIssued: () => issued,
    rejectIdentify(reject) {
      rejectAll = reject;
    },
    revokeTokens() {
      tokens.clear();
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
