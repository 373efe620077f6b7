import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createQqAdapter, type QqAdapter } from "./qq-adapter.js";
import { qqSign, qqSigningKeys } from "./qq-signature.js";
import {
  type FakeQqPlatform,
  fakeQqAppId,
  fakeQqSecret,
  startFakeQqPlatform,
} from "./test/fake-qq-platform.js";
import { createRecordingContext, type RecordingContext } from "./test/recording-context.js";

describe("QQ webhook mode", () => {
  let fake: FakeQqPlatform;
  let recording: RecordingContext;
  let adapter: QqAdapter;
  let url: string;
  const { privateKey } = qqSigningKeys(fakeQqSecret);
  const post = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers },
    });
    return { status: response.status, body: await response.text() };
  };
  const signed = (body: string, options: { timestamp?: string; key?: typeof privateKey } = {}) => {
    const timestamp = options.timestamp ?? String(Math.floor(Date.now() / 1000));
    return {
      "x-signature-timestamp": timestamp,
      "x-signature-ed25519": qqSign(options.key ?? privateKey, timestamp + body),
    };
  };
  const event = (id: string) =>
    JSON.stringify({
      op: 0,
      id,
      t: "C2C_MESSAGE_CREATE",
      d: {
        id: `msg-${id}`,
        author: { user_openid: "u1" },
        content: "hi",
        timestamp: new Date().toISOString(),
      },
    });

  beforeEach(async () => {
    fake = await startFakeQqPlatform();
    recording = await createRecordingContext();
    adapter = createQqAdapter({
      appId: fakeQqAppId,
      clientSecret: fakeQqSecret,
      apiBase: fake.apiBase,
      tokenUrl: fake.tokenUrl,
      mode: "webhook",
      listen: 0,
    });
    await adapter.start(recording.context);
    url = `http://127.0.0.1:${adapter.webhookPort()}/qq/events`;
  });
  afterEach(async () => {
    await adapter.stop();
    await fake.close();
    await recording.dispose();
    expect(JSON.stringify(recording.logs)).not.toContain(fakeQqSecret);
  });

  it("answers the op 13 validation with the signature the platform expects", async () => {
    const body = JSON.stringify({
      op: 13,
      d: { plain_token: "Arq0D5A61EgUu4OxUvOp", event_ts: "1725442341" },
    });
    const answer = await post(body);
    expect(answer.status).toBe(200);
    const { privateKey: documented } = qqSigningKeys(fakeQqSecret);
    expect(JSON.parse(answer.body)).toEqual({
      plain_token: "Arq0D5A61EgUu4OxUvOp",
      signature: qqSign(documented, "1725442341Arq0D5A61EgUu4OxUvOp"),
    });
  });

  it("acks (op 12) a signed event only after the accept; 500 when the inbox threw", async () => {
    const body = event("C2C_MESSAGE_CREATE:e1");
    recording.failNext(1);
    expect((await post(body, signed(body))).status).toBe(500);
    expect(await post(body, signed(body))).toEqual({ status: 200, body: '{"op":12}' });
    expect(recording.events).toMatchObject([
      { eventId: "C2C_MESSAGE_CREATE:e1", chatType: "direct", chatId: "u1", text: "hi" },
    ]);
  });

  it("rejects a bad signature, another key, a stale timestamp and a missing header before any accept", async () => {
    const body = event("C2C_MESSAGE_CREATE:e2");
    const headers = signed(body);
    expect((await post(body, { ...headers, "x-signature-ed25519": "00".repeat(64) })).status).toBe(401);
    expect(
      (await post(body, signed(body, { key: qqSigningKeys("someone-elses-secret").privateKey }))).status,
    ).toBe(401);
    expect(
      (await post(body, signed(body, { timestamp: String(Math.floor(Date.now() / 1000) - 3600) }))).status,
    ).toBe(401);
    expect((await post(body)).status).toBe(401);
    expect((await post(`${body} `, headers)).status).toBe(401);
    expect(recording.attempts()).toBe(0);
  });
});
