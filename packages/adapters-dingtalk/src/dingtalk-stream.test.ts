import { createRecordingContext, type RecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, it } from "vitest";
import { type DingtalkStream, startDingtalkStream } from "./dingtalk-stream.js";
import {
  type FakeDingtalkPlatform,
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "./test/fake-dingtalk-platform.js";

describe("the DingTalk stream: the official SDK at the fake gateway", () => {
  let fake: FakeDingtalkPlatform;
  let recording: RecordingContext;
  let stream: DingtalkStream | undefined;
  const taken: string[] = [];

  const start = async (
    options: { reconnectDelayMs?: number; keepAliveMs?: number; secret?: string } = {},
  ) => {
    fake = await startFakeDingtalkPlatform({ ackTimeoutMs: 1500 });
    recording = await createRecordingContext({ channel: "ding" });
    taken.length = 0;
    stream = await startDingtalkStream({
      clientId: fakeDingtalkClientId,
      clientSecret: options.secret ?? fakeDingtalkSecret,
      gatewayUrl: `${fake.apiBase}/v1.0/gateway/connections/open`,
      reconnectDelayMs: options.reconnectDelayMs ?? 50,
      keepAliveMs: options.keepAliveMs ?? 8000,
      context: recording.context,
      onMessage: async (data) => {
        const { msgId } = JSON.parse(data) as { msgId: string };
        await recording.context.inbox.accept({
          eventId: msgId,
          chatId: "c",
          chatType: "direct",
          userId: "u",
          text: "t",
          messageId: msgId,
        });
        taken.push(msgId);
      },
    });
  };
  const direct = (text: string, eventId?: string) =>
    fake.deliver({
      chatType: "direct",
      chatId: "staff1",
      userId: "staff1",
      text,
      ...(eventId ? { eventId } : {}),
    });

  afterEach(async () => {
    await stream?.stop();
    stream = undefined;
    await fake.close();
    await recording.dispose();
  });

  it("connects through the configured gateway and acknowledges a message only after it was accepted", async () => {
    await start();
    expect(recording.states.at(-1)).toEqual({ state: "connected" });
    expect(fake.stats().gatewayOpens).toBe(1);

    recording.failNext(1);
    const first = await direct("not yet");
    expect(first.acked).toBe(false);
    expect(taken).toEqual([]);
    // DingTalk delivers an unacknowledged message again; now it is accepted and acknowledged once.
    expect(await fake.redeliver(first.eventId)).toBe(true);
    expect(taken).toEqual([first.eventId]);
    expect(fake.stats().acks).toBe(1);
  });

  it("reconnects after a dropped connection, waiting longer after each failed gateway open", async () => {
    await start({ reconnectDelayMs: 100 });
    fake.failGatewayOpens(3);
    fake.dropConnection();
    await recording.until(
      () => fake.stats().connections === 2 && recording.states.at(-1)?.state === "connected",
      "the second connection",
      20_000,
    );
    const [, ...retries] = fake.gatewayRequests();
    expect(retries).toHaveLength(4);
    const gaps = retries.slice(1).map((time, index) => time - (retries[index] as number));
    // 100 ms, then 200 ms, then 400 ms: the waits double (load can only make them longer).
    expect(gaps[0]).toBeGreaterThanOrEqual(180);
    expect(gaps[1]).toBeGreaterThanOrEqual(380);
    expect(recording.states.map((entry) => entry.state)).toContain("retrying");
    expect((await direct("after the reconnect")).acked).toBe(true);
  });

  it("reconnects at once when DingTalk announces it will close the connection", async () => {
    await start({ reconnectDelayMs: 50 });
    fake.announceDisconnect();
    await recording.until(
      () => fake.stats().connections === 2 && recording.states.at(-1)?.state === "connected",
      "the new connection",
      20_000,
    );
    expect(fake.openConnections()).toBe(1);
    expect((await direct("after the notice")).acked).toBe(true);
  });

  it("drops a half-open connection when pings go unanswered, and reconnects", async () => {
    await start({ keepAliveMs: 200 });
    fake.answerPings(false);
    await recording.until(() => fake.stats().connections >= 2, "a new connection", 20_000);
    fake.answerPings(true);
    expect((await direct("still here")).acked).toBe(true);
  });

  it("stops with a failed state naming the fix when DingTalk refuses the credentials, and never logs the secret", async () => {
    await start({ secret: "wrongSecret-0123456789abcdef" });
    const last = recording.states.at(-1);
    expect(last?.state).toBe("failed");
    expect(last?.error).toMatch(/clientId and clientSecret/);
    const requests = fake.gatewayRequests().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fake.gatewayRequests()).toHaveLength(requests);
    const logged = JSON.stringify([recording.logs, recording.states]);
    expect(logged).not.toContain("wrongSecret-0123456789abcdef");
  });
});
