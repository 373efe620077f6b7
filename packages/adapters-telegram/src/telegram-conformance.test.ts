import { testChannelAdapter } from "@downcity/core/test";
import { telegramChannelAdapter } from "./telegram-adapter.js";
import { createTelegramConformanceFake } from "./test/telegram-conformance-fake.js";

testChannelAdapter({
  name: "telegram",
  createFake: createTelegramConformanceFake,
  createAdapter: (fake) => ({
    definition: telegramChannelAdapter,
    options: { token: fake.server.token, apiRoot: fake.server.url, pollTimeoutSeconds: 2 },
  }),
  capabilities: { maxTextLength: 4096, threads: true, idempotentSends: false },
});
