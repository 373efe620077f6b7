import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChannelFake, FakeIncoming } from "@downcity/core/test";
import { type WebSocket, WebSocketServer } from "ws";
import {
  createFakeDingtalkOpenApi,
  type FakeDingtalkOpenApi,
  fakeDingtalkClientId,
  fakeDingtalkSecret,
} from "./fake-dingtalk-openapi.js";
import { fakeRobotMessage } from "./fake-robot-message.js";

export { fakeDingtalkClientId, fakeDingtalkSecret } from "./fake-dingtalk-openapi.js";

/** The robot-message topic of Stream mode. */
const robotTopic = "/v1.0/im/bot/messages/get";

/** The fake DingTalk platform the tests drive: the Stream gateway and socket, and the OpenAPI. */
export interface FakeDingtalkPlatform
  extends ChannelFake,
    Omit<
      FakeDingtalkOpenApi,
      "handle" | "storeFile" | "sent" | "rateLimitNextSends" | "refuseNextFormatted"
    > {
  /** Root of the fake's OpenAPI (also its gateway and upload API): the adapter's `apiBase` and `oapiBase`. */
  readonly apiBase: string;
  /** Re-sends a robot message already delivered (DingTalk's redelivery of an unacknowledged one), waiting for its ack. */
  redeliver(eventId: string, timeoutMs?: number): Promise<boolean>;
  /** Lets `skip` robot sends pass, then answers the next `count` with 429. */
  rateLimitSendsAfter(skip: number, count: number, retryAfterMs: number): void;
  /** Gateway connection opens, socket connections and acks so far. */
  stats(): { gatewayOpens: number; connections: number; acks: number };
  /** When each gateway open request arrived (answered or refused), in ms since the epoch. */
  gatewayRequests(): number[];
  openConnections(): number;
  /** Sends a SYSTEM `disconnect` frame, as DingTalk does before closing a connection. */
  announceDisconnect(): void;
  /** Closes the current sockets abruptly (no close frame). */
  dropConnection(): void;
  /** The next `count` gateway opens answer HTTP 500. */
  failGatewayOpens(count: number): void;
  /** Ignores acks from now on (`true`), as if they never arrived: the adapter's process died before sending them. */
  ignoreAcks(ignore: boolean): void;
  /** Stops answering WebSocket pings (a half-open connection). */
  answerPings(answer: boolean): void;
}

/** Options of the fake. */
export interface FakeDingtalkOptions {
  /** How long `deliver` waits for the ack before reporting `acked: false` [3000]. */
  ackTimeoutMs?: number;
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts a fake DingTalk on 127.0.0.1: `POST /v1.0/gateway/connections/open` hands out a socket endpoint and a
 * one-time ticket; the socket pushes robot messages as CALLBACK frames and waits for each frame's ack (a reply
 * with `code: 200` and the frame's `messageId`); the OpenAPI issues tokens, takes robot sends and serves and
 * takes files (see `createFakeDingtalkOpenApi`). The real `dingtalk-stream` SDK is the client.
 */
export async function startFakeDingtalkPlatform(
  options: FakeDingtalkOptions = {},
): Promise<FakeDingtalkPlatform> {
  const api = createFakeDingtalkOpenApi();
  const tickets = new Set<string>();
  const sockets = new Set<WebSocket>();
  const waitingAcks = new Map<string, () => void>();
  const delivered = new Map<string, Record<string, unknown>>();
  const stats = { gatewayOpens: 0, connections: 0, acks: 0 };
  const gatewayRequests: number[] = [];
  let failOpens = 0;
  let pings = true;
  let ackless = false;
  let counter = 0;

  const server = createServer((request, response) => {
    void (async () => {
      const body = await readBody(request);
      const url = new URL(request.url ?? "/", "http://fake");
      if (request.method === "POST" && url.pathname === "/v1.0/gateway/connections/open") {
        const fields = JSON.parse(body.toString("utf8") || "{}") as Record<string, unknown>;
        gatewayRequests.push(Date.now());
        if (failOpens > 0) {
          failOpens -= 1;
          return json(response, 500, { code: "ServiceUnavailable", message: "try again later" });
        }
        if (
          api.credentialsRejected() ||
          fields.clientId !== fakeDingtalkClientId ||
          fields.clientSecret !== fakeDingtalkSecret
        )
          return json(response, 401, {
            code: "Unauthorized",
            message: "clientId or clientSecret is invalid",
          });
        stats.gatewayOpens += 1;
        const ticket = randomUUID();
        tickets.add(ticket);
        return json(response, 200, { endpoint: `ws://127.0.0.1:${port()}/connect`, ticket });
      }
      if (!(await api.handle(request, response, body, `http://127.0.0.1:${port()}`)))
        json(response, 404, { code: "resource.not.found", message: "no such API" });
    })().catch((error: Error) => json(response, 500, { code: "fake", message: error.message }));
  });
  const wss = new WebSocketServer({ noServer: true, autoPong: false });
  server.on("upgrade", (request, socket, head) => {
    const url = new URL(request.url ?? "/", "http://fake");
    const ticket = url.searchParams.get("ticket") ?? "";
    if (url.pathname !== "/connect" || !tickets.delete(ticket)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n");
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      stats.connections += 1;
      sockets.add(ws);
      ws.on("ping", (data) => pings && ws.pong(data));
      ws.on("close", () => sockets.delete(ws));
      ws.on("message", (raw) => {
        const frame = JSON.parse(raw.toString()) as { code?: number; headers?: { messageId?: string } };
        const messageId = frame.headers?.messageId;
        if (!ackless && frame.code === 200 && messageId && waitingAcks.has(messageId)) {
          stats.acks += 1;
          waitingAcks.get(messageId)?.();
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = () => (server.address() as AddressInfo).port;

  const openSocket = async (deadline: number): Promise<WebSocket | undefined> => {
    for (;;) {
      const open = [...sockets].find((socket) => socket.readyState === socket.OPEN);
      if (open || Date.now() > deadline) return open;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  const push = async (payload: Record<string, unknown>, timeoutMs: number): Promise<boolean> => {
    const socket = await openSocket(Date.now() + Math.max(timeoutMs, 10_000));
    if (!socket) return false;
    const messageId = `frame-${randomUUID()}`;
    const acked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      waitingAcks.set(messageId, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.send(
      JSON.stringify({
        specVersion: "1.0",
        type: "CALLBACK",
        headers: {
          appId: "fake-app",
          connectionId: "fake-connection",
          contentType: "application/json",
          messageId,
          time: String(Date.now()),
          topic: robotTopic,
        },
        data: JSON.stringify(payload),
      }),
    );
    const result = await acked;
    waitingAcks.delete(messageId);
    return result;
  };
  const ackTimeoutMs = options.ackTimeoutMs ?? 3000;

  return {
    ...api,
    apiBase: `http://127.0.0.1:${port()}`,
    hasNonText: true,
    sent: () => api.sent(),
    rateLimitNextSends: (count, retryAfterMs) => api.rateLimitNextSends(count, retryAfterMs),
    rateLimitSendsAfter: (skip, count, retryAfterMs) => api.rateLimitNextSends(count, retryAfterMs, skip),
    refuseNextFormatted: () => api.refuseNextFormatted(),
    async deliver(message: FakeIncoming, deliverOptions = {}) {
      counter += 1;
      const eventId = message.eventId ?? `msg${counter}${randomUUID().slice(0, 8)}`;
      const payload = fakeRobotMessage(message, eventId, (file) => api.storeFile(file));
      delivered.set(eventId, payload);
      return { acked: await push(payload, deliverOptions.timeoutMs ?? ackTimeoutMs), eventId };
    },
    async redeliver(eventId, timeoutMs = ackTimeoutMs) {
      const payload = delivered.get(eventId);
      return payload ? push(payload, timeoutMs) : false;
    },
    stats: () => ({ ...stats }),
    gatewayRequests: () => [...gatewayRequests],
    openConnections: () => [...sockets].filter((socket) => socket.readyState === socket.OPEN).length,
    announceDisconnect() {
      for (const socket of sockets)
        socket.send(
          JSON.stringify({
            specVersion: "1.0",
            type: "SYSTEM",
            headers: {
              contentType: "application/json",
              messageId: randomUUID(),
              time: String(Date.now()),
              topic: "disconnect",
            },
            data: JSON.stringify({ reason: "the server is restarting" }),
          }),
        );
    },
    dropConnection() {
      for (const socket of sockets) socket.terminate();
    },
    failGatewayOpens(count) {
      failOpens = count;
    },
    ignoreAcks(ignore) {
      ackless = ignore;
    },
    answerPings(answer) {
      pings = answer;
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
