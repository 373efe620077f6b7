import { request } from "node:http";
import { createRecordingContext, type RecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, it } from "vitest";
import { createTelegramAdapter, type TelegramAdapter } from "./telegram-adapter.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./test/fake-telegram-server.js";

const secret = "s3cret-Webhook_token";
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(): Promise<{
  fake: FakeTelegramServer;
  recording: RecordingContext;
  adapter: TelegramAdapter;
}> {
  const fake = await startFakeTelegramServer();
  cleanup.push(() => fake.close());
  const recording = await createRecordingContext({ channel: "tg" });
  cleanup.push(() => recording.dispose());
  const adapter = createTelegramAdapter(
    {
      token: fake.token,
      apiRoot: fake.url,
      mode: "webhook",
      listen: "127.0.0.1:0",
      path: "/tg",
      secretToken: secret,
    },
    { backoff: { initialMs: 20, maxMs: 200 } },
  );
  cleanup.push(() => adapter.stop());
  await adapter.start(recording.context);
  await recording.until(() => adapter.bot() !== undefined, "getMe");
  await recording.until(() => recording.states.some((state) => state.state === "connected"), "connected");
  return { fake, recording, adapter };
}

function post(port: number, body: string, headers: Record<string, string> = {}, path = "/tg") {
  return new Promise<{ status: number; at: number }>((resolve, reject) => {
    const call = request(
      {
        host: "127.0.0.1",
        port,
        agent: false,
        path,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, at: Date.now() }));
      },
    );
    call.on("error", reject);
    call.end(body);
  });
}

function updateBody(fake: FakeTelegramServer, text: string) {
  return JSON.stringify(fake.update(fake.injectMessage({ text })));
}

describe("telegram webhook", () => {
  it("rejects a missing or wrong secret before reading the body, accepting nothing", async () => {
    const { fake, recording, adapter } = await setup();
    const port = adapter.webhookPort() as number;
    expect((await post(port, updateBody(fake, "forged"))).status).toBe(401);
    expect((await post(port, "{not json", { "x-telegram-bot-api-secret-token": "wrong" })).status).toBe(401);
    expect(recording.attempts()).toBe(0);
    expect((await post(port, "{}", { "x-telegram-bot-api-secret-token": secret }, "/other")).status).toBe(
      404,
    );
    // Webhook mode sets nothing up on Telegram by itself.
    expect(fake.calls("setWebhook")).toHaveLength(0);
    expect(fake.calls("deleteWebhook")).toHaveLength(0);
  });

  it("answers 200 only after the inbox accepted the update", async () => {
    const { fake, recording, adapter } = await setup();
    const port = adapter.webhookPort() as number;
    const release = recording.hold();
    let answered = false;
    const response = post(port, updateBody(fake, "@dc_test_bot hi"), {
      "x-telegram-bot-api-secret-token": secret,
    }).then((result) => {
      answered = true;
      return result;
    });
    await recording.until(() => recording.attempts() === 1, "accept in flight");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    expect((await response).status).toBe(200);
    expect(recording.events).toHaveLength(1);
    expect(recording.events[0]).toMatchObject({ chatType: "direct", text: "@dc_test_bot hi" });
  });

  it("answers non-2xx when the inbox throws, so Telegram redelivers; the redelivery is accepted", async () => {
    const { fake, recording, adapter } = await setup();
    const port = adapter.webhookPort() as number;
    recording.failNext(1);
    const body = updateBody(fake, "retry me");
    const headers = { "x-telegram-bot-api-secret-token": secret };
    expect((await post(port, body, headers)).status).toBe(500);
    expect(recording.events).toHaveLength(0);
    expect((await post(port, body, headers)).status).toBe(200);
    expect(recording.events.map((event) => event.text)).toEqual(["retry me"]);
    const logged = JSON.stringify(recording.logs);
    expect(logged).toContain("answered 500");
    expect(logged).not.toContain(fake.token);
    expect(logged).not.toContain(secret);
  });

  it("acknowledges updates that carry no message, and stops listening on stop", async () => {
    const { fake, recording, adapter } = await setup();
    const port = adapter.webhookPort() as number;
    const sticker = JSON.stringify(fake.update(fake.injectMessage({ service: true })));
    expect((await post(port, sticker, { "x-telegram-bot-api-secret-token": secret })).status).toBe(200);
    expect(recording.attempts()).toBe(0);
    expect(
      recording.logs.some(
        (line) => line.level === "debug" && /pinned_message/.test(String(line.fields.reason)),
      ),
    ).toBe(true);
    await adapter.stop();
    await adapter.stop();
    await expect(post(port, sticker, { "x-telegram-bot-api-secret-token": secret })).rejects.toThrow(
      /ECONNREFUSED/,
    );
  });

  it("takes a button press Telegram posts as an action event, answered 200 once accepted", async () => {
    const { fake, recording, adapter } = await setup();
    const port = adapter.webhookPort() as number;
    const { messageId } = await adapter.send(
      { chatId: "42" },
      { text: "Allow?", actions: [{ id: "ap:once", label: "Allow once" }] },
      { idempotencyKey: "k" },
    );
    const press = JSON.stringify(fake.update(fake.pressButton(Number(messageId), "ap:once")));
    expect((await post(port, press, { "x-telegram-bot-api-secret-token": secret })).status).toBe(200);
    expect(recording.events).toEqual([
      expect.objectContaining({ messageId, text: "", action: { id: "ap:once", callbackId: "1" } }),
    ]);
  });

  it("refuses webhook mode without listen and secretToken, naming the fields", () => {
    expect(() => createTelegramAdapter({ token: "1:abc", mode: "webhook" })).toThrow(
      /listen[\s\S]*secretToken/,
    );
  });
});
