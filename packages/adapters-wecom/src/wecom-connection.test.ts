import { createRecordingContext, type RecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeWecomPlatform,
  fakeWecomBotId,
  fakeWecomSecret,
  startFakeWecomPlatform,
} from "./test/fake-wecom-platform.js";
import { createWecomAdapter } from "./wecom-adapter.js";

describe("the WeCom long connection", () => {
  let fake: FakeWecomPlatform;
  let recording: RecordingContext;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const started = async (options: Record<string, unknown> = {}) => {
    fake = await startFakeWecomPlatform({ quietMs: 500 });
    recording = await createRecordingContext({ channel: "wecom" });
    const adapter = createWecomAdapter({
      botId: fakeWecomBotId,
      secret: fakeWecomSecret,
      wsUrl: fake.wsUrl,
      reconnectDelayMs: 50,
      ...options,
    });
    cleanups.push(async () => {
      recording.abort();
      await adapter.stop();
      await recording.dispose();
      await fake.close();
    });
    return adapter;
  };
  const direct = (text: string) => ({ chatType: "direct", chatId: "ada", userId: "ada", text }) as const;
  const logText = () => JSON.stringify(recording.logs);

  it("refuses to start with a wrong secret, naming the fields to fix and never the secret", async () => {
    const adapter = await started({ secret: "not-the-right-secret-0123" });
    await expect(adapter.start(recording.context)).rejects.toThrow(/bot id or secret.*downcity\.json/);
    expect(fake.stats().refused).toBeGreaterThanOrEqual(1);
    expect(logText()).not.toContain("not-the-right-secret-0123");
  });

  it("reconnects after a dropped connection and receives again", async () => {
    const adapter = await started();
    await adapter.start(recording.context);
    expect(recording.states.at(-1)?.state).toBe("connected");
    fake.dropConnection();
    await recording.until(() => fake.stats().subscriptions >= 2, "the second subscription");
    expect(recording.states.map((entry) => entry.state)).toContain("retrying");
    expect((await fake.deliver(direct("after the drop"))).acked).toBe(true);
    expect(recording.events.map((event) => event.text)).toEqual(["after the drop"]);
    expect(recording.states.at(-1)?.state).toBe("connected");
    expect(logText()).not.toContain(fakeWecomSecret);
  });

  it("finds a half-open connection by its missed heartbeats and reconnects", async () => {
    const adapter = await started({ heartbeatMs: 150 });
    await adapter.start(recording.context);
    fake.answerHeartbeats(false);
    await recording.until(
      () => fake.stats().connections >= 2,
      "a new connection after missed heartbeats",
      20_000,
    );
    fake.answerHeartbeats(true);
    await recording.until(() => fake.stats().subscriptions >= 2, "the new subscription", 20_000);
  });

  it("does not answer a message the inbox failed to take; the redelivery is taken once", async () => {
    const adapter = await started();
    await adapter.start(recording.context);
    recording.failNext(1);
    const first = await fake.deliver(direct("keep me"));
    expect(first.acked).toBe(false);
    // WeCom pushed it again on the next connection; it was taken and answered with the thinking bubble.
    await recording.until(() => recording.events.length === 1, "the redelivered message");
    await recording.until(() => fake.typingSeen().length === 1, "the thinking bubble");
    expect(fake.stats().pushes[first.eventId]).toBe(2);
    expect(fake.reqIdsOf(first.eventId)).toHaveLength(2);
  });

  it("reports failed when another connection subscribes with the same bot", async () => {
    const adapter = await started();
    await adapter.start(recording.context);
    const { WSClient } = await import("@wecom/aibot-node-sdk");
    const intruder = new WSClient({
      botId: fakeWecomBotId,
      secret: fakeWecomSecret,
      wsUrl: fake.wsUrl,
      maxReconnectAttempts: 0,
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    intruder.connect();
    cleanups.push(async () => intruder.disconnect());
    await recording.until(() => recording.states.at(-1)?.state === "failed", "the failed state");
    expect(recording.states.at(-1)?.error).toMatch(/another one subscribed with the same bot id/);
  });
});
