import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter } from "./feishu-adapter.js";
import { feishuOptionsSchema } from "./feishu-options.js";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "./test/fake-open-platform.js";
import { createRecordingContext, type RecordingContext } from "./test/recording-context.js";

describe("feishu long connection", () => {
  let fake: FakeOpenPlatform;
  let recording: RecordingContext;
  let adapter: FeishuAdapter | undefined;

  const start = async (extra: Record<string, unknown> = {}) => {
    adapter = createFeishuAdapter({
      appId: fakeAppId,
      appSecret: fakeAppSecret,
      domain: fake.domain,
      restartDelayMs: 100,
      ...extra,
    });
    await adapter.start(recording.context);
    return adapter;
  };

  beforeEach(async () => {
    fake = await startFakeOpenPlatform();
    recording = await createRecordingContext();
  });
  afterEach(async () => {
    await adapter?.stop();
    adapter = undefined;
    await fake.close();
    await recording.dispose();
    const logged = JSON.stringify(recording.logs);
    expect(logged).not.toContain(fakeAppSecret);
    expect(logged).not.toMatch(/t-[0-9a-f]{8}-/);
  });

  it("refuses an appId the SDK would silently never connect with, naming the field and the format", () => {
    const result = feishuOptionsSchema.safeParse({ appId: "cli_123", appSecret: "x" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["appId"]);
    expect(result.error?.issues[0]?.message).toMatch(/cli_.*16 hex/);
  });

  it("acknowledges an event only after the inbox accepted it, and answers failure when it threw", async () => {
    await start();
    recording.failNext(1);
    const first = await fake.deliver({ chatType: "direct", chatId: "oc_1", userId: "ou_u1", text: "hi" });
    expect(first.acked).toBe(false);
    expect(recording.events).toHaveLength(0);
    const again = await fake.deliver({
      chatType: "direct",
      chatId: "oc_1",
      userId: "ou_u1",
      text: "hi",
      eventId: first.eventId,
    });
    expect(again.acked).toBe(true);
    expect(recording.events).toMatchObject([
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
    const release = recording.hold();
    let settled = false;
    const delivery = fake
      .deliver({ chatType: "direct", chatId: "oc_1", userId: "ou_u1", text: "slow disk" })
      .then((result) => {
        settled = true;
        return result;
      });
    await recording.until(() => recording.attempts() === 1, "the accept to begin");
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    release();
    expect((await delivery).acked).toBe(true);
  });

  it("takes events one at a time in the order Lark pushed them", async () => {
    await start();
    const release = recording.hold();
    const first = fake.deliver({ chatType: "direct", chatId: "oc_o", userId: "ou_u1", text: "first" });
    const second = fake.deliver({ chatType: "direct", chatId: "oc_o", userId: "ou_u1", text: "second" });
    await recording.until(() => recording.attempts() === 1, "the first accept to begin");
    // Both frames are on the wire; the second waits for the first accept instead of overtaking it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(recording.attempts()).toBe(1);
    release();
    expect([(await first).acked, (await second).acked]).toEqual([true, true]);
    expect(recording.events.map((event) => event.text)).toEqual(["first", "second"]);
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
      await start();
      expect(
        (
          await fake.deliver({
            chatType: "direct",
            chatId: "oc_p",
            userId: "ou_u1",
            text: "through no proxy",
          })
        ).acked,
      ).toBe(true);
      await adapter?.send({ chatId: "oc_p" }, { text: "answer" }, { idempotencyKey: "proxy-1" });
      expect(fake.sent()).toEqual([{ chatId: "oc_p", text: "answer", idempotencyKey: "proxy-1" }]);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it("reconnects when pings go unanswered (half-open socket), then delivers again", async () => {
    await start({ pingTimeoutSeconds: 1 });
    await recording.until(() => fake.openConnections() === 1, "the first connection");
    fake.answerPings(false);
    await recording.until(() => fake.connectionCount() >= 2, "a reconnect after the missing pong", 15_000);
    fake.answerPings(true);
    // Generous: on a loaded machine a late pong can cost one more reconnect before the event gets through.
    expect(
      (
        await fake.deliver(
          { chatType: "direct", chatId: "oc_2", userId: "ou_u1", text: "still here" },
          { timeoutMs: 25_000 },
        )
      ).acked,
    ).toBe(true);
    expect(recording.events.at(-1)?.text).toBe("still here");
    expect(recording.states.some((state) => state.state === "retrying")).toBe(true);
    expect(recording.states.at(-1)?.state).toBe("connected");
  }, 60_000);

  it("reconnects after the platform drops the socket", async () => {
    await start();
    await recording.until(() => fake.openConnections() === 1, "the first connection");
    fake.dropConnections();
    await recording.until(() => fake.connectionCount() >= 2 && fake.openConnections() === 1, "the reconnect");
    expect(
      (await fake.deliver({ chatType: "direct", chatId: "oc_3", userId: "ou_u1", text: "after the drop" }))
        .acked,
    ).toBe(true);
  });

  it("keeps the socket alive through a token refresh failure: events flow, sends fail retryably, then succeed", async () => {
    await start();
    await adapter?.send({ chatId: "oc_4" }, { text: "first" }, { idempotencyKey: "tok-0" });
    fake.revokeTokens();
    fake.failTokenRequests(1);
    const stale = await adapter
      ?.send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" })
      .catch((error: unknown) => error);
    expect(stale).toMatchObject({ name: "ChannelSendError", permanent: false });
    const refreshFailed = await adapter
      ?.send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" })
      .catch((error: unknown) => error);
    expect(refreshFailed).toMatchObject({ name: "ChannelSendError", permanent: false });
    expect(String((refreshFailed as Error).message)).not.toContain(fakeAppSecret);
    // The long connection never depended on the tenant token: still the first socket, still delivering.
    expect(
      (await fake.deliver({ chatType: "direct", chatId: "oc_4", userId: "ou_u1", text: "during the outage" }))
        .acked,
    ).toBe(true);
    expect(fake.connectionCount()).toBe(1);
    await adapter?.send({ chatId: "oc_4" }, { text: "reply" }, { idempotencyKey: "tok-1" });
    expect(fake.sent().map((sent) => sent.text)).toEqual(["first", "reply"]);
  });

  it("does not ack a group mention while the bot identity is unknown, and takes the redelivery", async () => {
    fake.failTokenRequests(100);
    await start();
    const first = await fake.deliver({
      chatType: "group",
      chatId: "oc_g",
      userId: "ou_u1",
      text: "hello",
      mentionBot: true,
    });
    expect(first.acked).toBe(false);
    expect(recording.events).toHaveLength(0);
    fake.failTokenRequests(0);
    const again = await fake.deliver({
      chatType: "group",
      chatId: "oc_g",
      userId: "ou_u1",
      text: "hello",
      mentionBot: true,
      eventId: first.eventId,
    });
    expect(again.acked).toBe(true);
    expect(recording.events).toMatchObject([{ eventId: first.eventId, mentionedBot: true, text: "hello" }]);
  });

  it("starts a fresh client when the SDK gives up on endpoint discovery", async () => {
    // Code 1 ("system busy") is one the SDK never retries by itself.
    fake.failEndpoint(1, 1);
    await start();
    await recording.until(() => fake.openConnections() === 1, "a connection after the restart");
    expect(
      recording.states.some(
        (state) => state.state === "retrying" && /Lark long connection failed/.test(state.error ?? ""),
      ),
    ).toBe(true);
    expect(
      (await fake.deliver({ chatType: "direct", chatId: "oc_5", userId: "ou_u1", text: "back" })).acked,
    ).toBe(true);
  });
});
