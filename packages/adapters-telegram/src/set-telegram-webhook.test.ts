import { afterEach, describe, expect, it } from "vitest";
import { deleteTelegramWebhook, setTelegramWebhook } from "./set-telegram-webhook.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./test/fake-telegram-server.js";

let fake: FakeTelegramServer;
afterEach(async () => {
  await fake?.close();
});

describe("setTelegramWebhook", () => {
  it("registers the URL with the secret for message updates, and deleteTelegramWebhook removes it", async () => {
    fake = await startFakeTelegramServer();
    await setTelegramWebhook({
      token: fake.token,
      apiRoot: fake.url,
      url: "https://bot.example.com/telegram",
      secretToken: "hook-secret_1",
    });
    expect(fake.webhook()).toEqual({
      url: "https://bot.example.com/telegram",
      secret_token: "hook-secret_1",
    });
    expect(fake.calls("setWebhook")[0]?.payload).toMatchObject({
      allowed_updates: ["message", "callback_query"],
      drop_pending_updates: false,
      max_connections: 1,
    });
    await deleteTelegramWebhook({ token: fake.token, apiRoot: fake.url });
    expect(fake.webhook()).toBeUndefined();
  });

  it("names a bad field, and reports Telegram's refusal without the token", async () => {
    fake = await startFakeTelegramServer();
    await expect(
      setTelegramWebhook({
        token: fake.token,
        apiRoot: fake.url,
        url: "https://x.example",
        secretToken: "no spaces",
      }),
    ).rejects.toMatchObject({ code: "INVALID_INPUT", field: "secretToken" });
    const wrong = "999:WrongTokenValue_abcdef123";
    const error = await setTelegramWebhook({
      token: wrong,
      apiRoot: fake.url,
      url: "https://x.example",
      secretToken: "s",
    }).catch((caught: Error) => caught);
    expect((error as Error).message).toMatch(/Could not set the webhook: Telegram setWebhook failed \(401/);
    expect(JSON.stringify({ message: (error as Error).message, error })).not.toContain("WrongTokenValue");
  });
});
