import { testChannelAdapter } from "@downcity/core/test";
import wecom from "./index.js";
import {
  type FakeWecomPlatform,
  fakeWecomBotId,
  fakeWecomBotName,
  fakeWecomSecret,
  startFakeWecomPlatform,
} from "./test/fake-wecom-platform.js";

testChannelAdapter<FakeWecomPlatform>({
  name: "wecom",
  createFake: () => startFakeWecomPlatform(),
  createAdapter: (fake) => ({
    definition: wecom,
    options: {
      botId: fakeWecomBotId,
      secret: fakeWecomSecret,
      botName: fakeWecomBotName,
      wsUrl: fake.wsUrl,
      reconnectDelayMs: 50,
      rateLimitRetryMs: 400,
    },
  }),
  capabilities: { threads: false, polls: true, attachmentsOut: true },
});
