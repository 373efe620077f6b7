import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createFeishuAdapter } from "./feishu-adapter.js";
import { feishuOptionsSchema } from "./feishu-options.js";
import { fakeAppId, fakeAppSecret, startFakeOpenPlatform } from "./test/fake-open-platform.js";

describe("feishu long connection", () => {
  const bed = useRecordingTestBed({
    createFake: () => startFakeOpenPlatform(),
    secrets: [fakeAppSecret, /t-[0-9a-f]{8}-/],
  });
  const start = (extra: Record<string, unknown> = {}) =>
    bed.start(
      createFeishuAdapter({
        appId: fakeAppId,
        appSecret: fakeAppSecret,
        domain: bed.fake.domain,
        restartDelayMs: 100,
        ...extra,
      }),
    );

  it("refuses an appId the SDK would silently never connect with, naming the field and the format", () => {
    const result = feishuOptionsSchema.safeParse({ appId: "cli_123", appSecret: "x" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["appId"]);
    expect(result.error?.issues[0]?.message).toMatch(/cli_.*16 hex/);
  });

  it("acknowledges an event only after the inbox accepted it, and answers failure when it threw", async () => {
    await start();
    bed.recording.failNext(1);
    const first = await bed.fake.deliver({ chatType: "direct", chatId: "oc_1", userId: "ou_u1", text: "hi" });
    expect(first.acked).toBe(false);
    expect(bed.recording.events).toHaveLength(0);
    const again = await bed.fake.deliver({
      chatType: "direct",
      chatId: "oc_1",
      userId: "ou_u1",
      text: "hi",
      eventId: first.eventId,
    });
    expect(again.acked).toBe(true);
    expect(bed.recording.events).toMatchObject([
      {
        eventId: first.eventId,
        chatId: "oc_1",
        chatType: "direct",
        userId: "ou_u1",
        text: "hi",
        mentionedBot: false,
      },
    ]);
  });

  it("holds the ack while the accept is pending (never acks before the durable write)", async () => {
    await start();
    const release = bed.recording.hold();
    let settled = false;
    const delivery = bed.fake
      .deliver({ chatType: "direct", chatId: "oc_1", userId: "ou_u1", text: "slow disk" })
      .then((result) => {
        settled = true;
        return result;
      });
    await bed.recording.until(() => bed.recording.attempts() === 1, "the accept to begin");
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    expect((await delivery).acked).toBe(true);
  });

  it("takes events one at a time in the order Lark pushed them", async () => {
    await start();
    const release = bed.recording.hold();
    const first = bed.fake.deliver({ chatType: "direct", chatId: "oc_o", userId: "ou_u1", text: "first" });
    const second = bed.fake.deliver({ chatType: "direct", chatId: "oc_o", userId: "ou_u1", text: "second" });
    await bed.recording.until(() => bed.recording.attempts() === 1, "the first accept to begin");
    // Both frames are on the wire; the second waits for the first accept instead of overtaking it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bed.recording.attempts()).toBe(1);
    release();
    expect([(await first).acked, (await second).acked]).toEqual([true, true]);
    expect(bed.recording.events.map((event) => event.text)).toEqual(["first", "second"]);
  });

  it("ignores HTTP(S)_PROXY: a dead proxy in the environment does not capture the open platform", async () => {
    const saved = {
      HTTP_PROXY: process.env.HTTP_PROXY,
      HTTPS_PROXY: process.env.HTTPS_PROXY,
      ALL_PROXY: process.env.ALL_PROXY,
      http_proxy: process.env.http_proxy,
    };
    process.env.HTTP_PROXY = "http://127.0.0.1:9";
    process.env.http_proxy = "http://127.0.0.1:9";
    process.env.HTTPS_PROXY = "http://127.0.0.1:9";
    process.env.ALL_PROXY = "http://127.0.0.1:9";
    try {
      const adapter = await start();
      expect(
        (
          await bed.fake.deliver({
            chatType: "direct",
            chatId: "oc_p",
            userId: "ou_u1",
            text: "through no proxy",
          })
        ).acked,
      ).toBe(true);
      await adapter.send({ chatId: "oc_p" }, { text: "answer" }, { idempotencyKey: "proxy-1" });
      expect(bed.fake.sent()).toEqual([
        { chatId: "oc_p", text: "answer", idempotencyKey: "proxy-1", format: "markdown" },
      ]);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("reconnects when pings go unanswered (half-open socket), then delivers again", async () => {
    await start({ pingTimeoutSeconds: 1 });
    await bed.recording.until(() => bed.fake.openConnections() === 1, "the first connection");
    bed.fake.answerPings(false);
    await bed.recording.until(
      () => bed.fake.connectionCount() >= 2,
      "a reconnect after the missing pong",
      15_000,
    );
    bed.fake.answerPings(true);
    // Generous: on a loaded machine a late pong can cost one more reconnect before the event gets through.
    expect(
      (
        await bed.fake.deliver(
          { chatType: "direct", chatId: "oc_2", userId: "ou_u1", text: "still here" },
          { timeoutMs: 25_000 },
        )
      ).acked,
    ).toBe(true);
    expect(bed.recording.events.at(-1)?.text).toBe("still here");
    expect(bed.recording.states.some((state) => state.state === "retrying")).toBe(true);
    expect(bed.recording.states.at(-1)?.state).toBe("connected");
  }, 60_000);

  it("reconnects after the platform drops the socket", async () => {
    await start();
    await bed.recording.until(() => bed.fake.openConnections() === 1, "the first connection");
    bed.fake.dropConnections();
    await bed.recording.until(
      () => bed.fake.connectionCount() >= 2 && bed.fake.openConnections() === 1,
      "the reconnect",
    );
    expect(
      (
        await bed.fake.deliver({
          chatType: "direct",
          chatId: "oc_3",
          userId: "ou_u1",
          text: "after the drop",
        })
      ).acked,
    ).toBe(true);
  });

  it("keeps the socket alive through a token refresh failure: events flow, sends fail retryably, then succeed", async () => {
    const adapter = await start();
    await adapter.send({ chatId: "oc_4" }, { text: "first" }, { idempotencyKey: "tok-0" });
    bed.fake.revokeTokens();
    bed.fake.failTokenRequests(1);
    const stale = await adapter
      .send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" })
      .catch((error: unknown) => error);
    expect(stale).toMatchObject({ name: "ChannelSendError", permanent: false });
    const refreshFailed = await adapter
      .send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" })
      .catch((error: unknown) => error);
    expect(refreshFailed).toMatchObject({ name: "ChannelSendError", permanent: false });
    expect(String((refreshFailed as Error).message)).not.toContain(fakeAppSecret);
    // The long connection never depended on the tenant token: still the first socket, still delivering.
    expect(
      (
        await bed.fake.deliver({
          chatType: "direct",
          chatId: "oc_4",
          userId: "ou_u1",
          text: "during the outage",
        })
      ).acked,
    ).toBe(true);
    expect(bed.fake.connectionCount()).toBe(1);
    await adapter.send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" });
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["first", "reply"]);
  });

  it("does not ack a group mention while the bot identity is unknown, and takes the redelivery", async () => {
    bed.fake.failTokenRequests(100);
    await start();
    const first = await bed.fake.deliver({
      chatType: "group",
      chatId: "oc_g",
      userId: "ou_u1",
      text: "hello",
      mentionBot: true,
    });
    expect(first.acked).toBe(false);
    expect(bed.recording.events).toHaveLength(0);
    bed.fake.failTokenRequests(0);
    const again = await bed.fake.deliver({
      chatType: "group",
      chatId: "oc_g",
      userId: "ou_u1",
      text: "hello",
      mentionBot: true,
      eventId: first.eventId,
    });
    expect(again.acked).toBe(true);
    expect(bed.recording.events).toMatchObject([
      { eventId: first.eventId, mentionedBot: true, text: "hello" },
    ]);
  });

  it("starts a fresh client when the SDK gives up on endpoint discovery", async () => {
    // Code 1 ("system busy") is one the SDK never retries by itself.
    bed.fake.failEndpoint(1, 1);
    await start();
    await bed.recording.until(() => bed.fake.openConnections() === 1, "a connection after the restart");
    expect(
      bed.recording.states.some(
        (state) => state.state === "retrying" && /Lark long connection failed/.test(state.error ?? ""),
      ),
    ).toBe(true);
    expect(
      (await bed.fake.deliver({ chatType: "direct", chatId: "oc_5", userId: "ou_u1", text: "back" })).acked,
    ).toBe(true);
  });
});
