import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ChannelSendError, DowncityError } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { createWebhookSender } from "./webhook-sender.js";
import { verifyWebhookSignature } from "./webhook-signature.js";

const secret = "sender-secret-0123456789";

interface Received {
  headers: IncomingMessage["headers"];
  raw: string;
  body: Record<string, unknown>;
  /** The sender's port: one per connection. */
  remotePort: number | undefined;
}

/** A loopback receiver answering with whatever `respond` decides. */
async function startReceiver(respond: (received: Received, response: ServerResponse) => void) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const entry = {
        headers: request.headers,
        raw,
        body: JSON.parse(raw) as Record<string, unknown>,
        remotePort: request.socket.remotePort,
      };
      received.push(entry);
      respond(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    url: `http://127.0.0.1:${port}/replies?token=do-not-leak`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const failure = async (promise: Promise<unknown>): Promise<ChannelSendError> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ChannelSendError);
    expect(DowncityError.isInstance(error)).toBe(true);
    expect((error as Error).message).not.toContain("do-not-leak");
    expect((error as Error).message).not.toContain(secret);
    return error as ChannelSendError;
  }
  throw new Error("expected the send to fail");
};

describe("webhook sender (POST url)", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  async function receiver(respond: (received: Received, response: ServerResponse) => void) {
    const started = await startReceiver(respond);
    closers.push(started.close);
    const send = createWebhookSender({ url: started.url, secret, timeoutMs: 2000 });
    return { ...started, send };
  }

  it("posts the signed JSON reply with the idempotency key; any 2xx is delivered", async () => {
    const statuses = [200, 201, 202, 204];
    const { send, received } = await receiver((_, response) => {
      const status = statuses[received.length - 1] ?? 200;
      if (status === 200)
        response.writeHead(200, { "content-type": "application/json" }).end('{"messageId":"r-1"}');
      else response.writeHead(status).end();
    });
    const first = await send(
      { chatId: "c1", threadId: "t1", replyToMessageId: "m9" },
      { text: "hello" },
      { idempotencyKey: "k-1" },
    );
    expect(first).toEqual({ messageId: "r-1" });
    for (const key of ["k-2", "k-3", "k-4"])
      await expect(send({ chatId: "c2" }, { text: "x" }, { idempotencyKey: key })).resolves.toEqual({});
    expect(received[0]?.body).toEqual({
      idempotencyKey: "k-1",
      chatId: "c1",
      threadId: "t1",
      text: "hello",
      format: "markdown",
      replyToMessageId: "m9",
    });
    expect(received[1]?.body).toEqual({ idempotencyKey: "k-2", chatId: "c2", text: "x", format: "markdown" });
    for (const entry of received) {
      expect(verifyWebhookSignature(secret, entry.raw, entry.headers["x-downcity-signature"])).toBe(true);
      expect(entry.headers["idempotency-key"]).toBe(entry.body.idempotencyKey);
      expect(entry.headers["content-type"]).toMatch(/^application\/json/);
    }
  });

  it("turns 429 into a retryable error carrying Retry-After, in seconds or as an HTTP date", async () => {
    const retryAfter = ["7", new Date(Date.now() + 30_000).toUTCString(), undefined];
    const { send, received } = await receiver((_, response) => {
      const value = retryAfter[received.length - 1];
      response.writeHead(429, value ? { "retry-after": value } : {}).end("slow down");
    });
    const seconds = await failure(send({ chatId: "c" }, { text: "a" }, { idempotencyKey: "k" }));
    expect(seconds).toMatchObject({ status: 429, permanent: false, retryAfterMs: 7000 });
    const date = await failure(send({ chatId: "c" }, { text: "a" }, { idempotencyKey: "k" }));
    expect(date.retryAfterMs).toBeGreaterThan(25_000);
    expect(date.retryAfterMs).toBeLessThanOrEqual(30_000);
    const none = await failure(send({ chatId: "c" }, { text: "a" }, { idempotencyKey: "k" }));
    expect(none).toMatchObject({ status: 429, permanent: false });
    expect(none.retryAfterMs).toBeUndefined();
  });

  it("treats 5xx, 408 and 425 as retryable, other 4xx and 3xx as permanent", async () => {
    const statuses = [500, 502, 503, 408, 425, 400, 401, 403, 404, 410, 301];
    const { send, received } = await receiver((_, response) => {
      const status = statuses[received.length - 1] as number;
      response
        .writeHead(status, status === 301 ? { location: "http://127.0.0.1:1/elsewhere" } : {})
        .end("no");
    });
    for (const status of statuses) {
      const error = await failure(send({ chatId: "c" }, { text: "a" }, { idempotencyKey: `k${status}` }));
      expect(error.status).toBe(status);
      expect(error.permanent).toBe(status < 500 && ![408, 425].includes(status));
      expect(error.message).toContain(`HTTP ${status}`);
    }
    expect(received).toHaveLength(statuses.length);
  });

  it("treats a refused connection and a receiver that never answers as retryable", async () => {
    const { port, close } = await startReceiver(() => {});
    await close();
    const refused = createWebhookSender({
      url: `http://127.0.0.1:${port}/r?token=do-not-leak`,
      secret,
      timeoutMs: 2000,
    });
    const error = await failure(refused({ chatId: "c" }, { text: "a" }, { idempotencyKey: "k" }));
    expect(error).toMatchObject({ permanent: false, message: /ECONNREFUSED/ });
    expect(error.status).toBeUndefined();

    const silent = await receiver(() => {});
    const slow = createWebhookSender({ url: silent.url, secret, timeoutMs: 200 });
    const timedOut = await failure(slow({ chatId: "c" }, { text: "a" }, { idempotencyKey: "k" }));
    expect(timedOut).toMatchObject({ permanent: false, message: /no answer within 200 ms/ });
  });

  it("keeps one connection for successive replies, and a cut answer is retryable", async () => {
    const { send, received } = await receiver((entry, response) => {
      if (entry.body.text === "cut") {
        response.writeHead(200, { "content-length": "100" }).write("{");
        response.destroy();
      } else response.writeHead(200).end();
    });
    for (const key of ["k-1", "k-2", "k-3"])
      await expect(send({ chatId: "c" }, { text: "x" }, { idempotencyKey: key })).resolves.toEqual({});
    const ports = new Set(received.map((entry) => entry.remotePort));
    expect(ports.size).toBe(1);
    const cut = await failure(send({ chatId: "c" }, { text: "cut" }, { idempotencyKey: "k-4" }));
    expect(cut).toMatchObject({ permanent: false, message: /ECONNRESET/ });
  });
});
