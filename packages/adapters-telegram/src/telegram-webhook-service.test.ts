import { silentLogger } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { telegramOptionsSchema } from "./telegram-options.js";
import { createTelegramWebhookService } from "./telegram-webhook-service.js";
import { type FakeTelegramServer, startFakeTelegramServer } from "./test/fake-telegram-server.js";

let fake: FakeTelegramServer;
afterEach(async () => {
  await fake?.close();
});

const call = (service: ReturnType<typeof createTelegramWebhookService>, action: string, input: unknown) => {
  const definition = service.actions[action];
  if (!definition) throw new Error(`no action ${action}`);
  return definition.handler(definition.input.parse(input), { logger: silentLogger });
};

describe("the telegram channel service", () => {
  it("sets, reads and deletes the webhook with the channel's own token and secret", async () => {
    fake = await startFakeTelegramServer();
    const options = telegramOptionsSchema.parse({
      token: fake.token,
      apiRoot: fake.url,
      mode: "webhook",
      listen: 8443,
      secretToken: "channel-secret",
    });
    const service = createTelegramWebhookService("tg", options);
    expect(service.name).toBe("tg");
    expect(await call(service, "set-webhook", { url: "https://bot.example.com/telegram" })).toEqual({
      url: "https://bot.example.com/telegram",
      mode: "webhook",
    });
    expect(fake.webhook()).toEqual({
      url: "https://bot.example.com/telegram",
      secret_token: "channel-secret",
    });
    expect(await call(service, "webhook-info", {})).toEqual({
      url: "https://bot.example.com/telegram",
      pendingUpdateCount: 0,
    });
    expect(await call(service, "delete-webhook", {})).toEqual({ deleted: true });
    expect(fake.webhook()).toBeUndefined();
  });

  it("refuses set-webhook without a secretToken, naming the field", async () => {
    fake = await startFakeTelegramServer();
    const service = createTelegramWebhookService(
      "tg",
      telegramOptionsSchema.parse({ token: fake.token, apiRoot: fake.url }),
    );
    await expect(call(service, "set-webhook", { url: "https://bot.example.com/x" })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      field: "channels.tg.secretToken",
    });
    expect(fake.calls("setWebhook")).toHaveLength(0);
  });
});
