import { testChannelAdapter } from "@downcity/core/test";
import { createTelegramConformanceFake } from "../test/telegram-conformance-fake.js";
import { telegramChannelAdapter } from "./telegram-adapter.js";

for (const mode of ["polling", "webhook"] as const)
  testChannelAdapter({
    name: `telegram (${mode})`,
    createFake: () => createTelegramConformanceFake(mode),
    createAdapter: (fake) => ({ definition: telegramChannelAdapter, options: fake.options }),
    capabilities: { maxTextLength: 4096, threads: true, idempotentSends: false },
  });
