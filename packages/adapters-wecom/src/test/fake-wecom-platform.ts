import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, ChannelFakeLiveness, FakeIncoming } from "@downcity/core/test";
import { WebSocket, WebSocketServer } from "ws";
import { createFakeWecomMediaHost } from "./fake-wecom-media.js";
import {
  createFakeWecomOutbound,
  type FakeWecomFrame,
  type FakeWecomOutbound,
  type FakeWecomRoute,
} from "./fake-wecom-outbound.js";

/** Credentials the fake accepts. */
export const fakeWecomBotId = "aibFakeBot0001";
export const fakeWecomSecret = "fakeWecomSecret0123456789abcdef";
/** The bot's display name in group mentions. */
export const fakeWecomBotName = "Downcity";

/** A callback pushed to the bot, until it is answered, settles or its connection drops. */
interface Push {
  reqId: string;
  socket: WebSocket;
  frame: Record<string, unknown>;
  settle(acked: boolean): void;
}

/** The fake WeCom intelligent-bot long connection the tests drive (the real SDK connects to it). */
export interface FakeWecomPlatform extends ChannelFake, ChannelFakeLiveness {
  readonly wsUrl: string;
  /** Pushes a message callback again (WeCom's redelivery, same msgid, a new req_id). */
  redeliver(eventId: string, timeoutMs?: number): Promise<boolean>;
  /** Connections, accepted subscriptions, refused ones, pushes per msgid. */
  stats(): { connections: number; subscriptions: number; refused: number; pushes: Record<string, number> };
  openConnections(): number;
  /** Closes the current connection abruptly (no close frame). */
  dropConnection(): void;
  /** Refuses every subscription from now on, whatever the secret (it was reset in the admin console). */
  rejectCredentials(reject: boolean): void;
  /** Stops answering heartbeats (a half-open connection). */
  answerHeartbeats(answer: boolean): void;
  /** Every thinking bubble opened (a stream frame with `finish: false`), by chat. */
  typingSeen(): Array<{ chatId: string }>;
  /** The req_ids a message callback was pushed with, in order (redeliveries add one each). */
  reqIdsOf(eventId: string): string[];
  /** Every frame the adapter sent (replies and pushes, thinking bubbles included). */
  frames(): FakeWecomFrame[];
  downloads(url: string): number;
  /** Group messages WeCom did not push to the bot, because they did not @-mention it. */
  notPushed(): FakeIncoming[];
}

/** How the fake behaves: how long a callback must stay unanswered on a live connection to count as delivered. */
export interface FakeWecomOptions {
  quietMs?: number;
  replyWindowMs?: number;
}

/**
 * Starts the fake on 127.0.0.1:0: the WebSocket endpoint (subscribe, ping, callbacks, replies, pushes,
 * uploads) and the encrypted media URLs. Its delivery model: a callback is delivered once the bot
 * answers its req_id, or once the connection stayed up `quietMs` after it; a callback in flight when
 * the connection drops is pushed again (same msgid, new req_id) on the next subscribed connection.
 * A new subscription closes the older connection with `disconnected_event`, as WeCom keeps one per bot.
 */
export async function startFakeWecomPlatform(options: FakeWecomOptions = {}): Promise<FakeWecomPlatform> {
  const quietMs = options.quietMs ?? 2000;
  const routes = new Map<string, FakeWecomRoute>();
  const callbacks = new Map<string, Record<string, unknown>>();
  const inFlight = new Map<string, Push>();
  const lost: Array<Record<string, unknown>> = [];
  const skipped: FakeIncoming[] = [];
  const reqIds = new Map<string, string[]>();
  const stats = { connections: 0, subscriptions: 0, refused: 0, pushes: {} as Record<string, number> };
  const outbound: FakeWecomOutbound = createFakeWecomOutbound({
    route: (reqId) => routes.get(reqId),
    replyWindowMs: options.replyWindowMs ?? 24 * 60 * 60 * 1000,
  });
  let origin = "";
  const media = createFakeWecomMediaHost(() => origin);
  let current: WebSocket | undefined;
  let heartbeats = true;
  let rejectAll = false;

  const server: Server = createServer((request, response) => {
    const file = media.serve(new URL(request.url ?? "/", "http://127.0.0.1").pathname);
    if (!file) return response.writeHead(404).end();
    response
      .writeHead(200, { "content-type": "application/octet-stream", "content-length": file.byteLength })
      .end(file);
  });
  const wss = new WebSocketServer({ server });
  const send = (socket: WebSocket, frame: unknown) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };

  const push = (frame: Record<string, unknown>, timeoutMs: number): Promise<boolean> =>
    new Promise((resolve) => {
      const socket = current;
      if (!socket) return resolve(false);
      const body = frame.body as { msgid: string; chatid?: string; from: { userid: string } };
      const reqId = `aibot_msg_callback_${randomBytes(6).toString("hex")}`;
      routes.set(reqId, { chatId: body.chatid ?? body.from.userid, at: Date.now() });
      stats.pushes[body.msgid] = (stats.pushes[body.msgid] ?? 0) + 1;
      reqIds.set(body.msgid, [...(reqIds.get(body.msgid) ?? []), reqId]);
      const timers: NodeJS.Timeout[] = [];
      const entry: Push = {
        reqId,
        socket,
        frame,
        settle(acked) {
          for (const timer of timers) clearTimeout(timer);
          inFlight.delete(reqId);
          resolve(acked);
        },
      };
      inFlight.set(reqId, entry);
      timers.push(setTimeout(() => entry.settle(socket.readyState === WebSocket.OPEN), quietMs));
      timers.push(setTimeout(() => entry.settle(false), timeoutMs));
      send(socket, { ...frame, headers: { req_id: reqId } });
    });

  wss.on("connection", (socket) => {
    stats.connections += 1;
    socket.on("message", (data: Buffer) => {
      const frame = JSON.parse(data.toString("utf8")) as FakeWecomFrame;
      const reqId = frame.headers?.req_id ?? "";
      if (frame.cmd === "aibot_subscribe") {
        const body = frame.body ?? {};
        if (rejectAll || body.bot_id !== fakeWecomBotId || body.secret !== fakeWecomSecret) {
          stats.refused += 1;
          return send(socket, { headers: { req_id: reqId }, errcode: 40001, errmsg: "invalid secret" });
        }
        stats.subscriptions += 1;
        const previous = current;
        current = socket;
        if (previous && previous !== socket) {
          send(previous, {
            cmd: "aibot_event_callback",
            headers: { req_id: `aibot_event_callback_${randomBytes(4).toString("hex")}` },
            body: {
              msgid: randomBytes(8).toString("hex"),
              msgtype: "event",
              event: { eventtype: "disconnected_event" },
            },
          });
          previous.close();
        }
        send(socket, { headers: { req_id: reqId }, errcode: 0, errmsg: "ok" });
        for (const frame of lost.splice(0)) void push(frame, 10_000);
        return;
      }
      if (frame.cmd === "ping") {
        if (heartbeats) send(socket, { headers: { req_id: reqId }, errcode: 0, errmsg: "ok" });
        return;
      }
      if (frame.cmd === "aibot_respond_msg") inFlight.get(reqId)?.settle(true);
      send(socket, { headers: { req_id: reqId }, ...outbound.handle(frame) });
    });
    socket.on("close", () => {
      if (current === socket) current = undefined;
      for (const entry of [...inFlight.values()])
        if (entry.socket === socket) {
          lost.push(entry.frame);
          entry.settle(false);
        }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const waitConnected = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!current && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return current !== undefined;
  };

  const callbackFor = (message: FakeIncoming, msgid: string): Record<string, unknown> => {
    const group = message.chatType === "group";
    const text = group ? `@${fakeWecomBotName} ${message.text}` : message.text;
    const base = {
      msgid,
      aibotid: fakeWecomBotId,
      chattype: group ? "group" : "single",
      // A WeCom direct chat is the user: its chat id is the sender's userid.
      from: { userid: group ? message.userId : message.chatId },
      create_time: Math.floor(Date.now() / 1000),
      ...(group ? { chatid: message.chatId } : {}),
    };
    const [file] = message.files ?? [];
    if (!file) return { ...base, msgtype: "text", text: { content: text } };
    const hosted = media.host(file.data);
    if (file.kind === "image" && message.text)
      return {
        ...base,
        msgtype: "mixed",
        mixed: {
          msg_item: [
            { msgtype: "text", text: { content: text } },
            { msgtype: "image", image: hosted },
          ],
        },
      };
    const kind = file.kind === "image" || file.kind === "video" ? file.kind : "file";
    return { ...base, msgtype: kind, [kind]: hosted };
  };

  return {
    wsUrl: origin.replace("http", "ws"),
    async deliver(message, deliverOptions) {
      const eventId = message.eventId ?? randomBytes(12).toString("hex");
      const timeoutMs = deliverOptions?.timeoutMs ?? 10_000;
      // WeCom pushes group messages only when they @-mention the bot.
      if (message.chatType === "group" && !message.mentionBot) {
        skipped.push(message);
        return { acked: true, eventId };
      }
      if (!(await waitConnected(timeoutMs))) return { acked: false, eventId };
      if (message.nonText) {
        // Entering the chat: an event callback, which needs no answer.
        send(current as WebSocket, {
          cmd: "aibot_event_callback",
          headers: { req_id: `aibot_event_callback_${randomBytes(4).toString("hex")}` },
          body: {
            msgid: eventId,
            msgtype: "event",
            chattype: "single",
            from: { userid: message.chatId },
            event: { eventtype: "enter_chat" },
          },
        });
        return { acked: true, eventId };
      }
      const frame = { cmd: "aibot_msg_callback", body: callbackFor(message, eventId) };
      callbacks.set(eventId, frame);
      return { acked: await push(frame, timeoutMs), eventId };
    },
    async redeliver(eventId, timeoutMs = 10_000) {
      const frame = callbacks.get(eventId);
      if (!frame) throw new Error(`no callback ${eventId} to redeliver`);
      if (!(await waitConnected(timeoutMs))) return false;
      return push(frame, timeoutMs);
    },
    sent: () => outbound.sent(),
    typingSeen: () => outbound.typingSeen(),
    frames: () => outbound.frames(),
    reqIdsOf: (eventId) => [...(reqIds.get(eventId) ?? [])],
    rateLimitNextSends: (count) => outbound.rateLimitNextSends(count),
    refuseNextFormatted: () => outbound.refuseNextFormatted(),
    stats: () => ({ ...stats, pushes: { ...stats.pushes } }),
    openConnections: () => [...wss.clients].filter((client) => client.readyState === WebSocket.OPEN).length,
    dropConnection() {
      current?.terminate();
    },
    rejectCredentials(reject) {
      rejectAll = reject;
    },
    answerHeartbeats(answer) {
      heartbeats = answer;
    },
    downloads: (url) => media.downloads(url),
    notPushed: () => [...skipped],
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
