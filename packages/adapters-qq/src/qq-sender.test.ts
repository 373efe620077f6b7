import { useRecordingTestBed } from "@downcity/core/test";
import { beforeEach, describe, expect, it } from "vitest";
import { createQqAdapter, type QqAdapter } from "./qq-adapter.js";
import { qqMessageSeq, sendQqText } from "./qq-sender.js";
import { createQqTokenSource } from "./qq-token-source.js";
import { fakeQqAppId, fakeQqSecret, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("sending to QQ", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform() });
  let adapter: QqAdapter;
  beforeEach(async () => {
    adapter = await bed.start(
      createQqAdapter({
        appId: fakeQqAppId,
        clientSecret: fakeQqSecret,
        apiBase: bed.fake.apiBase,
        tokenUrl: bed.fake.tokenUrl,
      }),
    );
  });

  it("derives a stable msg_seq per outbox key, different for each chunk", () => {
    expect(qqMessageSeq("run-1#0")).toBe(qqMessageSeq("run-1#0"));
    expect(qqMessageSeq("run-1#0")).not.toBe(qqMessageSeq("run-1#0.1"));
    expect(qqMessageSeq("x")).toBeGreaterThanOrEqual(1);
    expect(qqMessageSeq("x")).toBeLessThan(2 ** 31);
  });

  it("turns a reply past the platform's window into a permanent error that says so", async () => {
    const { eventId } = await bed.fake.deliver({
      chatType: "group",
      chatId: "g1",
      userId: "m1",
      text: "old",
      mentionBot: true,
    });
    bed.fake.expireMessage(`msg-${eventId}`);
    const error = (await adapter
      .send(
        { chatId: "g1", chatType: "group", replyToMessageId: `msg-${eventId}` },
        { text: "late" },
        { idempotencyKey: "k" },
      )
      .catch((caught: unknown) => caught as Error)) as Error;
    expect(error).toMatchObject({ name: "ChannelSendError", permanent: true, status: 400 });
    expect(error.message).toMatch(/msg_id expired.*60 min for direct chats and 5 min for groups/);
  });

  it("refuses locally a reply it knows is too old, without calling the platform", async () => {
    const tokens = createQqTokenSource({
      tokenUrl: bed.fake.tokenUrl,
      appId: fakeQqAppId,
      clientSecret: fakeQqSecret,
    });
    const ledger = { chatType: () => "group" as const, sentAt: () => 0 };
    const error = (await sendQqText(
      { apiBase: bed.fake.apiBase, tokens, ledger, now: () => 6 * 60_000 },
      { chatId: "g1", replyToMessageId: "m" },
      "late",
      "k",
    ).catch((caught: unknown) => caught as Error)) as Error;
    expect(error).toMatchObject({ name: "ChannelSendError", permanent: true });
    expect(error.message).toMatch(
      /QQ reply window closed: group messages can be answered for 5 minutes .*6 min old/,
    );
    expect(bed.fake.sendRequests()).toHaveLength(0);
  });

  it("reports a 429 with its wait, a send without a chat kind or trigger as permanent, and an outage as retryable", async () => {
    const { eventId } = await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "q" });
    bed.fake.rateLimitNextSends(1, 1500);
    const limited = await adapter
      .send({ chatId: "u1", replyToMessageId: `msg-${eventId}` }, { text: "a" }, { idempotencyKey: "k1" })
      .catch((caught: unknown) => caught);
    expect(limited).toMatchObject({
      name: "ChannelSendError",
      permanent: false,
      retryAfterMs: 1500,
      status: 429,
    });
    expect(
      await adapter
        .send({ chatId: "unknown" }, { text: "a" }, { idempotencyKey: "k2" })
        .catch((caught: unknown) => caught),
    ).toMatchObject({ permanent: true });
    expect(
      await adapter
        .send({ chatId: "u1" }, { text: "a" }, { idempotencyKey: "k3" })
        .catch((caught: unknown) => caught),
    ).toMatchObject({ permanent: true, status: 400 });
    await adapter.stop();
    await bed.fake.close();
    const down = await adapter
      .send(
        { chatId: "u1", chatType: "direct", replyToMessageId: `msg-${eventId}` },
        { text: "a" },
        { idempotencyKey: "k4" },
      )
      .catch((caught: unknown) => caught);
    expect(down).toMatchObject({ name: "ChannelSendError", permanent: false });
  });
});
