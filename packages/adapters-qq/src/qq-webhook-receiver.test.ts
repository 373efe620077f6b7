import { useRecordingTestBed } from "@downcity/core/test";
import { beforeEach, describe, expect, it } from "vitest";
import { createQqAdapter } from "./qq-adapter.js";
import { qqSign, qqSigningKeys } from "./qq-signature.js";
import { fakeQqConnection, fakeQqSecret, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("QQ webhook mode", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform(), secrets: [fakeQqSecret] });
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
    const adapter = await bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
        mode: "webhook",
        listen: 0,
      }),
    );
    url = `http://127.0.0.1:${adapter.webhookPort()}/qq/events`;
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
    bed.recording.failNext(1);
    expect((await post(body, signed(body))).status).toBe(500);
    expect(await post(body, signed(body))).toEqual({ status: 200, body: '{"op":12}' });
    expect(bed.recording.events).toMatchObject([
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
    expect(bed.recording.attempts()).toBe(0);
  });
});
