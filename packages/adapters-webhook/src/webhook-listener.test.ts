import { request as httpRequest } from "node:http";
import { connect, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createRecordingInbox } from "./recording-inbox.js";
import { createTestChannelContext } from "./test-channel-context.js";
import { createWebhookAdapter, type WebhookAdapter } from "./webhook-adapter.js";
import { signWebhookBody } from "./webhook-signature.js";

const secret = "test-secret-0123456789abcdef";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** One raw HTTP request with node:http (so headers and bodies are exactly what we wrote). */
function post(
  port: number,
  body: string | Buffer,
  options: { path?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: options.path ?? "/events",
        method: options.method ?? "POST",
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : {} });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const signed = (port: number, payload: unknown) => {
  const body = JSON.stringify(payload);
  return post(port, body, {
    headers: { "content-type": "application/json", "x-downcity-signature": signWebhookBody(secret, body) },
  });
};

const event = (eventId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  chatId: "chat-1",
  chatType: "direct",
  userId: "user-1",
  text: `hello ${eventId}`,
  ...extra,
});

describe("webhook listener (POST /events)", () => {
  const adapters: WebhookAdapter[] = [];
  afterEach(async () => {
    for (const adapter of adapters.splice(0)) await adapter.stop();
  });

  async function started(overrides: Record<string, unknown> = {}) {
    const inbox = createRecordingInbox();
    const channel = createTestChannelContext(inbox);
    const adapter = createWebhookAdapter({
      listen: { host: "127.0.0.1", port: 0 },
      url: "http://127.0.0.1:9/replies",
      secret,
      ...overrides,
    });
    adapters.push(adapter);
    await adapter.start(channel.context);
    const port = adapter.address()?.port as number;
    return { adapter, inbox, channel, port };
  }

  it("accepts a signed event with 202 after the inbox resolves, mapping every field", async () => {
    const { inbox, port, channel } = await started();
    expect(channel.states).toEqual([{ state: "connected" }]);
    const answer = await signed(
      port,
      event("e1", {
        username: "ana",
        threadId: "t-9",
        mentioned: true,
        messageId: "m-1",
        replyToMessageId: "m-0",
      }),
    );
    expect(answer).toMatchObject({ status: 202, body: { accepted: true } });
    expect(inbox.events).toEqual([
      {
        eventId: "e1",
        chatId: "chat-1",
        chatType: "direct",
        userId: "user-1",
        username: "ana",
        text: "hello e1",
        messageId: "m-1",
        threadId: "t-9",
        replyToMessageId: "m-0",
        mentionedBot: true,
        fromBot: false,
      },
    ]);
    // Without messageId the event id stands in; mentioned defaults to false.
    await signed(port, event("e2", { chatType: "group" }));
    expect(inbox.events[1]).toMatchObject({ messageId: "e2", mentionedBot: false, chatType: "group" });
  });

  it("answers a resent event 200 { duplicate: true } and a denied one 202 { denied: true }", async () => {
    const { inbox, port } = await started();
    expect((await signed(port, event("dup"))).status).toBe(202);
    expect(await signed(port, event("dup"))).toMatchObject({ status: 200, body: { duplicate: true } });
    inbox.deny.add("stranger");
    expect(await signed(port, event("d1", { userId: "stranger" }))).toMatchObject({
      status: 202,
      body: { denied: true },
    });
    expect(inbox.events.map((item) => item.eventId)).toEqual(["dup"]);
  });

  it("rejects a missing or wrong signature with 401 before reading the JSON, and never echoes it", async () => {
    const { inbox, port } = await started();
    const body = JSON.stringify(event("s1"));
    const missing = await post(port, body);
    expect(missing.status).toBe(401);
    expect(String(missing.body.error)).toMatch(/missing X-Downcity-Signature/);
    const wrongKey = signWebhookBody("another-secret-0123456789", body);
    const bad = await post(port, body, { headers: { "x-downcity-signature": wrongKey } });
    expect(bad.status).toBe(401);
    expect(JSON.stringify(bad.body)).not.toContain(wrongKey.slice(7));
    // A valid signature of other bytes (the body re-serialised with a space) does not pass either.
    const other = await post(port, body, {
      headers: { "x-downcity-signature": signWebhookBody(secret, JSON.stringify(event("s1"), null, 1)) },
    });
    expect(other.status).toBe(401);
    for (const header of [
      "sha256=",
      "sha1=00",
      `sha256=${"zz".repeat(32)}`,
      signWebhookBody(secret, body).slice(0, 70),
    ]) {
      expect((await post(port, body, { headers: { "x-downcity-signature": header } })).status).toBe(401);
    }
    // A signed non-JSON body gets past the signature and fails as JSON: the check came first.
    const notJson = await post(port, "{nope", {
      headers: { "x-downcity-signature": signWebhookBody(secret, "{nope") },
    });
    expect(notJson).toMatchObject({ status: 400, body: { field: "(root)" } });
    expect(inbox.events).toEqual([]);
  });

  it("answers 400 naming the bad field", async () => {
    const { port, inbox } = await started();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...event("b1"), chatType: "channel" }, "chatType", /chatType: must be "direct" or "group"/],
      [{ ...event("b2"), eventId: undefined }, "eventId", /eventId: is required/],
      [{ ...event("b3"), userId: 42 }, "userId", /userId: must be a string/],
      [{ ...event("b4"), chatId: "" }, "chatId", /chatId: must not be empty/],
      [{ ...event("b5"), mentioned: "yes" }, "mentioned", /mentioned: must be true or false/],
    ];
    for (const [payload, field, message] of cases) {
      const answer = await signed(port, payload);
      expect(answer.status).toBe(400);
      expect(answer.body.field).toBe(field);
      expect(String(answer.body.error)).toMatch(message);
    }
    const array = await signed(port, [event("b6")]);
    expect(array.status).toBe(400);
    expect(inbox.events).toEqual([]);
  });

  it("answers 413 over maxBodyBytes, declared or streamed, and 404/405 off the route", async () => {
    const { port } = await started({ maxBodyBytes: 1024 });
    const big = JSON.stringify(event("big", { text: "x".repeat(2000) }));
    const declared = await post(port, big, {
      headers: { "x-downcity-signature": signWebhookBody(secret, big) },
    });
    expect(declared.status).toBe(413);
    const streamed = await post(port, big, {
      headers: { "transfer-encoding": "chunked", "x-downcity-signature": signWebhookBody(secret, big) },
    });
    expect(streamed.status).toBe(413);
    expect((await post(port, "", { path: "/other" })).status).toBe(404);
    const wrongMethod = await post(port, "", { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe("POST");
  });

  it("answers 503 (no ack) while the inbox throws, then accepts the sender's retry once", async () => {
    const { inbox, port } = await started();
    inbox.failWith = new Error("disk full");
    const failed = await signed(port, event("r1"));
    expect(failed.status).toBe(503);
    expect(failed.headers["retry-after"]).toBe("1");
    expect(inbox.events).toEqual([]);
    inbox.failWith = undefined;
    expect((await signed(port, event("r1"))).status).toBe(202);
    expect((await signed(port, event("r1"))).status).toBe(200);
    expect(inbox.events.map((item) => item.eventId)).toEqual(["r1"]);
  });

  it("acknowledges only after the inbox resolves, and stop waits for that accept", async () => {
    const { inbox, port, adapter } = await started();
    let release: () => void = () => {};
    inbox.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered: Answer | undefined;
    const pending = signed(port, event("held")).then((answer) => {
      answered = answer;
      return answer;
    });
    await expect.poll(() => inbox.parked, { timeout: 5000 }).toBe(1);
    let stopped = false;
    const stopping = adapter.stop().then(() => {
      stopped = true;
    });
    // Once new connections are refused, stop is under way; it must still wait for the parked accept.
    await expect.poll(() => connects(port), { timeout: 5000 }).toBe(false);
    expect(answered).toBeUndefined();
    expect(stopped).toBe(false);
    release();
    expect((await pending).status).toBe(202);
    await stopping;
    expect(inbox.events.map((item) => item.eventId)).toEqual(["held"]);
  });

  it("stop waits for an accept whose sender already hung up", async () => {
    const { inbox, port, adapter } = await started();
    let release: () => void = () => {};
    inbox.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const body = JSON.stringify(event("gone"));
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path: "/events",
      method: "POST",
      agent: false,
      headers: { "x-downcity-signature": signWebhookBody(secret, body) },
    });
    req.on("error", () => {});
    req.end(body);
    await expect.poll(() => inbox.parked, { timeout: 5000 }).toBe(1);
    req.destroy();
    let stopped = false;
    const stopping = adapter.stop().then(() => {
      stopped = true;
    });
    await expect.poll(() => connects(port), { timeout: 5000 }).toBe(false);
    // Bounded negative check: stop must not finish while the accept is still parked.
    await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, 100))]);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(inbox.events.map((item) => item.eventId)).toEqual(["gone"]);
  });

  it("start and stop are idempotent; after stop the port is free and requests are refused", async () => {
    const { adapter, port, channel } = await started();
    await adapter.start(channel.context);
    expect(adapter.address()?.port).toBe(port);
    await Promise.all([adapter.stop(), adapter.stop()]);
    await adapter.stop();
    expect(adapter.address()).toBeUndefined();
    await expect(signed(port, event("late"))).rejects.toThrow(/ECONNREFUSED/);
    await expectPortFree(port);
    // It can start again on the same port.
    const fixed = await started({ listen: { host: "127.0.0.1", port } });
    expect(fixed.port).toBe(port);
  });

  it("stops when the channel's signal aborts", async () => {
    const { channel, port, adapter } = await started();
    channel.abort();
    await expect.poll(() => adapter.address(), { timeout: 5000 }).toBeUndefined();
    await expectPortFree(port);
  });

  it("stops at once when started with an already aborted signal", async () => {
    const first = await started();
    await first.adapter.stop();
    // Started again on the same (known) port, with the signal already aborted.
    const { channel, adapter, port } = await started({ listen: { host: "127.0.0.1", port: first.port } });
    await adapter.stop();
    channel.abort();
    await adapter.start(channel.context);
    await expect.poll(() => adapter.address(), { timeout: 5000 }).toBeUndefined();
    await adapter.stop();
    await expectPortFree(port);
  });

  it("fails to start naming listen.port when the port is taken, and reports the state", async () => {
    const first = await started();
    const inbox = createRecordingInbox();
    const channel = createTestChannelContext(inbox);
    const second = createWebhookAdapter({
      listen: { host: "127.0.0.1", port: first.port },
      url: "http://127.0.0.1:9/",
      secret,
    });
    await expect(second.start(channel.context)).rejects.toMatchObject({
      field: "listen.port",
      message: /is in use/,
    });
    expect(channel.states).toEqual([{ state: "failed", error: expect.stringMatching(/listen\.port/) }]);
    await second.stop();
  });
});

/** True when a TCP connection to the port succeeds. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

function expectPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
}
