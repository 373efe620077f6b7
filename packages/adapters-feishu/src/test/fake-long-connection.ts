import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { WebSocket, WebSocketServer } from "ws";
import { decodeLarkFrame, encodeLarkFrame, frameHeader, type LarkFrame } from "./lark-frame.js";
import { type PushOutcome, safeObject } from "./post-webhook-event.js";

/** How a pushed event ended on the long connection. */
type Ack = PushOutcome | "closed" | "timeout" | "answered-failure";

/** The fake's side of the SDK's long connection (`/ws`): pings, pushed events, their acks. */
export interface FakeLongConnection {
  /** Pushes an event on the newest socket, again when unacknowledged, until `deadline`. */
  push(payload: string, deadline: number): Promise<PushOutcome>;
  connectionCount(): number;
  openConnections(): number;
  pingCount(): number;
  answerPings(answer: boolean): void;
  dropConnections(): void;
  close(): Promise<void>;
}

/**
 * Serves the long connection on `server`'s upgrades to `/ws`: answers pings with pongs carrying the client
 * config (unless told not to), pushes events as data frames and reads the acks (the handler's answer, a card
 * callback's toast, travels base64-encoded in the ack's `data`). Like the real platform, an event without an ack
 * (its socket closed, or no answer within about 3 s) is pushed again, on the newest connection.
 */
export function serveLongConnection(server: Server): FakeLongConnection {
  const sockets = new Set<WebSocket>();
  const pendingAcks = new Map<string, (acked: Ack) => void>();
  const ackTimeoutMs = 3000;
  let connections = 0;
  let pings = 0;
  let pongs = true;

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
          const ack = JSON.parse(new TextDecoder().decode(frame.payload ?? new Uint8Array())) as {
            code?: number;
            data?: string;
          };
          // The handler's answer (a card callback's toast) travels base64-encoded in the ack's `data`.
          const answer = ack.data ? safeObject(Buffer.from(ack.data, "base64").toString("utf8")) : undefined;
          pendingAcks.get(id)?.(
            ack.code === 200 ? { acked: true, ...(answer ? { answer } : {}) } : "answered-failure",
          );
        }
      });
    });
  });
  const openSocket = async (deadline: number): Promise<WebSocket | undefined> => {
    for (;;) {
      // The newest connection is the live one: an older socket may be one the client already abandoned.
      const socket = [...sockets].reverse().find((candidate) => candidate.readyState === WebSocket.OPEN);
      if (socket) return socket;
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 20));
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
    return new Promise<Ack>((resolve) => {
      const finish = (outcome: Ack) => {
        clearTimeout(timer);
        pendingAcks.delete(id);
        socket.off("close", onClose);
        resolve(outcome);
      };
      const onClose = () => finish("closed");
      const timer = setTimeout(() => finish("timeout"), Math.max(1, deadline - Date.now()));
      pendingAcks.set(id, finish);
      socket.on("close", onClose);
      socket.send(encodeLarkFrame(frame));
    });
  };

  return {
    async push(payload, deadline) {
      for (;;) {
        const socket = await openSocket(deadline);
        if (!socket) return { acked: false };
        const outcome = await pushEvent(socket, payload, Math.min(deadline, Date.now() + ackTimeoutMs));
        if (typeof outcome === "object") return outcome;
        if (outcome === "answered-failure" || Date.now() >= deadline) return { acked: false };
      }
    },
    connectionCount: () => connections,
    openConnections: () => [...sockets].filter((socket) => socket.readyState === WebSocket.OPEN).length,
    pingCount: () => pings,
    answerPings(answer) {
      pongs = answer;
    },
    dropConnections() {
      for (const socket of sockets) socket.terminate();
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      for (const resolve of pendingAcks.values()) resolve("answered-failure");
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
