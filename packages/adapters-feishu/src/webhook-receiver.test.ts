import { randomUUID } from "node:crypto";
import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createFeishuAdapter } from "./feishu-adapter.js";
import {
  encryptLarkBody,
  fakeAppId,
  fakeAppSecret,
  larkCardActionEnvelope,
  larkMessageEnvelope,
  signLarkBody,
  startFakeOpenPlatform,
} from "./test/fake-open-platform.js";

const encryptKey = "webhook-encrypt-key";

describe("feishu webhook mode", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeOpenPlatform(), secrets: [encryptKey] });
  let url: string;

  const start = async (extra: Record<string, unknown>) => {
    const adapter = await bed.start(
      createFeishuAdapter({
        appId: fakeAppId,
        appSecret: fakeAppSecret,
        domain: bed.fake.domain,
        mode: "webhook",
        listen: 0,
        ...extra,
      }),
    );
    url = `http://127.0.0.1:${adapter.webhookPort()}/lark/events`;
  };
  const envelope = (eventId = `ev_${randomUUID()}`) =>
    JSON.stringify(
      larkMessageEnvelope({
        chatType: "direct",
        chatId: "oc_1",
        userId: "ou_1",
        text: "hi",
        eventId,
        messageId: `om_${eventId}`,
        botOpenId: "ou_bot",
      }),
    );
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
    });
    return { status: response.status, body: await response.text() };
  };
  const signed = (body: string, options: { key?: string; timestamp?: string } = {}) => {
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
    const nonce = randomUUID();
    return {
      "x-lark-request-timestamp": timestamp,
      "x-lark-request-nonce": nonce,
      "x-lark-signature": signLarkBody(timestamp, nonce, options.key ?? encryptKey, body),
    };
  };

  it("refuses to start unauthenticated: webhook mode needs encryptKey or verificationToken", () => {
    expect(() =>
      createFeishuAdapter({ appId: fakeAppId, appSecret: "s", mode: "webhook", listen: 0 }),
    ).toThrow(/encryptKey/);
  });

  it("decrypts a signed event and answers 200 only after the accept; a failed accept gets 500", async () => {
    await start({ encryptKey });
    const body = JSON.stringify({ encrypt: encryptLarkBody(encryptKey, envelope("ev_ok")) });
    bed.recording.failNext(1);
    expect((await post(body, signed(body))).status).toBe(500);
    expect(bed.recording.events).toHaveLength(0);
    expect((await post(body, signed(body))).status).toBe(200);
    expect(bed.recording.events).toMatchObject([{ eventId: "ev_ok", chatType: "direct", text: "hi" }]);
  });

  it("rejects a bad signature, a stale timestamp, a missing signature and a plain body, before any accept", async () => {
    await start({ encryptKey });
    const body = JSON.stringify({ encrypt: encryptLarkBody(encryptKey, envelope()) });
    expect((await post(body, signed(body, { key: "other-key" }))).status).toBe(401);
    expect(
      (await post(body, signed(body, { timestamp: String(Math.floor(Date.now() / 1000) - 7200) }))).status,
    ).toBe(401);
    expect((await post(body)).status).toBe(401);
    const plain = envelope();
    expect((await post(plain, signed(plain))).status).toBe(401);
    expect((await post("{nope", signed("{nope"))).status).toBe(400);
    expect(bed.recording.attempts()).toBe(0);
  });

  it("answers the encrypted url_verification challenge, and refuses one encrypted with another key", async () => {
    await start({ encryptKey });
    const challenge = JSON.stringify({ challenge: "c-123", token: "vt", type: "url_verification" });
    const good = await post(JSON.stringify({ encrypt: encryptLarkBody(encryptKey, challenge) }));
    expect(good).toEqual({ status: 200, body: '{"challenge":"c-123"}' });
    expect((await post(JSON.stringify({ encrypt: encryptLarkBody("wrong-key", challenge) }))).status).toBe(
      401,
    );
  });

  it("checks the verification token on plain events and challenges", async () => {
    await start({ verificationToken: "verification-token" });
    expect((await post(envelope("ev_plain"))).status).toBe(200);
    expect(bed.recording.events.map((event) => event.eventId)).toEqual(["ev_plain"]);
    const forged = JSON.parse(envelope("ev_forged"));
    forged.header.token = "guess";
    expect((await post(JSON.stringify(forged))).status).toBe(401);
    expect(
      await post(JSON.stringify({ challenge: "c-9", token: "verification-token", type: "url_verification" })),
    ).toEqual({ status: 200, body: '{"challenge":"c-9"}' });
    expect(
      (await post(JSON.stringify({ challenge: "c-9", token: "nope", type: "url_verification" }))).status,
    ).toBe(401);
    expect(bed.recording.events).toHaveLength(1);
  });

  it("takes a card button press (card.action.trigger) from the same URL; a late answer is posted under the card", async () => {
    await start({ encryptKey });
    const adapter = createFeishuAdapter({
      appId: fakeAppId,
      appSecret: fakeAppSecret,
      domain: bed.fake.domain,
    });
    const card = await adapter.send(
      { chatId: "oc_1", chatType: "direct" },
      { text: "Allow?", actions: [{ id: "approve:K7Q2:once", label: "Allow once" }] },
      { idempotencyKey: "card-1" },
    );
    const messageId = card.messageId ?? "";
    const press = JSON.stringify(
      larkCardActionEnvelope({
        eventId: "ev_press_1",
        messageId,
        chatId: "oc_1",
        userId: "ou_1",
        value: { downcity_action: "approve:K7Q2:once" },
      }),
    );
    const body = JSON.stringify({ encrypt: encryptLarkBody(encryptKey, press) });
    const answer = await post(body, signed(body));
    expect(answer).toEqual({ status: 200, body: "{}" });
    expect(bed.recording.events.at(-1)).toMatchObject({
      eventId: "ev_press_1",
      userId: "ou_1",
      text: "",
      messageId,
      action: { id: "approve:K7Q2:once", callbackId: "ev_press_1" },
    });
    // The receiving adapter never saw this chat and the chats API does not know it: the stricter type.
    expect(bed.recording.events.at(-1)?.chatType).toBe("group");
    const pressed = bed.recording.events.at(-1);
    if (!pressed) throw new Error("no press recorded");
    await adapter.answerAction?.({ ...pressed, mentionedBot: true, fromBot: false }, "Already answered.");
    expect(bed.fake.messages().at(-1)).toMatchObject({
      msgType: "text",
      replyTo: messageId,
      content: { text: "Already answered." },
    });
  });
});
