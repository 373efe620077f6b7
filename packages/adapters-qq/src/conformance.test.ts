import { testChannelAdapter } from "@downcity/core/test";
import { webhookFakes } from "@downcity/test-support";
import qq from "./index.js";
import {
  type FakeQqPlatform,
  fakeQqAppId,
  fakeQqSecret,
  startFakeQqPlatform,
} from "./test/fake-qq-platform.js";

const pointedAt = (fake: FakeQqPlatform) => ({
  appId: fakeQqAppId,
  clientSecret: fakeQqSecret,
  apiBase: fake.apiBase,
  tokenUrl: fake.tokenUrl,
});

testChannelAdapter<FakeQqPlatform>({
  name: "qq (websocket)",
  createFake: () => startFakeQqPlatform(),
  createAdapter: (fake) => ({ definition: qq, options: { ...pointedAt(fake), reconnectDelayMs: 50 } }),
  capabilities: { threads: false },
});

const webhook = webhookFakes("/qq/events", (url) =>
  startFakeQqPlatform({ delivery: { mode: "webhook", url } }),
);
testChannelAdapter<FakeQqPlatform>({
  name: "qq (webhook)",
  createFake: webhook.createFake,
  createAdapter: (fake) => ({
    definition: qq,
    options: { ...pointedAt(fake), mode: "webhook", listen: webhook.listen(fake) },
  }),
  capabilities: { threads: false },
});
