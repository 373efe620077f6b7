import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter } from "./feishu-adapter.js";
import { sendUuid } from "./feishu-sender.js";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "./test/fake-open-platform.js";

describe("sending to Lark", () => {
  let fake: FakeOpenPlatform;
  let adapter: FeishuAdapter;
  beforeEach(async () => {
    fake = await startFakeOpenPlatform();
    adapter = createFeishuAdapter({ appId: fakeAppId, appSecret: fakeAppSecret, domain: fake.domain });
  });
  afterEach(async () => {
    await adapter.stop();
    await fake.close();
  });

  it("keeps keys up to 50 characters and digests longer ones to a stable uuid Lark accepts", () => {
    expect(sendUuid("short-key")).toBe("short-key");
    const long = `lark:oc_1:${"x".repeat(80)}#3`;
    expect(sendUuid(long)).toBe(sendUuid(long));
    expect(sendUuid(long).length).toBeLessThanOrEqual(50);
    expect(sendUuid(long)).not.toBe(sendUuid(`${long}.1`));
  });

  it("sends to the chat with uuid and a Bearer tenant token; a retry with the same key is deduplicated by Lark", async () => {
    const key = `lark:oc_1:${"m".repeat(60)}`;
    const first = await adapter.send(
      { chatId: "oc_1", chatType: "group" },
      { text: "hi" },
      { idempotencyKey: key },
    );
    const second = await adapter.send(
      { chatId: "oc_1", chatType: "group" },
      { text: "hi" },
      { idempotencyKey: key },
    );
    expect(second.messageId).toBe(first.messageId);
    expect(fake.sent()).toEqual([
      { chatId: "oc_1", text: "hi", idempotencyKey: sendUuid(key), format: "markdown" },
    ]);
    const [request] = fake.sendRequests();
    expect(request?.path).toBe("/open-apis/im/v1/messages?receive_id_type=chat_id");
    expect(request?.authorization).toMatch(/^Bearer t-/);
    expect(request?.body).toMatchObject({ receive_id: "oc_1", msg_type: "interactive" });
    expect(JSON.parse(String(request?.body.content))).toEqual({
      schema: "2.0",
      config: { update_multi: true },
      body: { elements: [{ tag: "markdown", content: "hi" }] },
    });
  });

  it("replies in the thread of the message it answers", async () => {
    await fake.deliver(
      { chatType: "group", chatId: "oc_2", userId: "ou_1", text: "q", threadId: "omt_9", eventId: "evq" },
      { timeoutMs: 1 },
    );
    await adapter.send(
      { chatId: "oc_2", threadId: "omt_9", replyToMessageId: "om_evq" },
      { text: "a" },
      { idempotencyKey: "k-reply" },
    );
    expect(fake.sent()).toEqual([
      { chatId: "oc_2", threadId: "omt_9", text: "a", idempotencyKey: "k-reply", format: "markdown" },
    ]);
    expect(fake.sendRequests()[0]).toMatchObject({
      path: "/open-apis/im/v1/messages/om_evq/reply",
      body: { reply_in_thread: true, uuid: "k-reply" },
    });
  });

  it("reports a refusal Lark will repeat as permanent, and a rate limit with its wait", async () => {
    const refused = await adapter
      .send({ chatId: "oc_3", replyToMessageId: "om_gone" }, { text: "x" }, { idempotencyKey: "k1" })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: "ChannelSendError", permanent: true, status: 400 });
    expect(String((refused as Error).message)).toMatch(/230011/);
    fake.rateLimitNextSends(1, 2000);
    const limited = await adapter
      .send({ chatId: "oc_3" }, { text: "x" }, { idempotencyKey: "k2" })
      .catch((error: unknown) => error);
    expect(limited).toMatchObject({
      name: "ChannelSendError",
      permanent: false,
      retryAfterMs: 2000,
      status: 429,
    });
  });

  it("reports an unreachable platform as retryable", async () => {
    await fake.close();
    const failed = await adapter
      .send({ chatId: "oc_4" }, { text: "x" }, { idempotencyKey: "k3" })
      .catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: "ChannelSendError", permanent: false });
    fake = await startFakeOpenPlatform();
  });
});
