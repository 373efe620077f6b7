import { testChannelAdapter } from "@downcity/core/test";
import { webhookFakes } from "@downcity/test-support";
import feishu from "./index.js";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "./test/fake-open-platform.js";

const pointedAt = (fake: FakeOpenPlatform) => ({
  appId: fakeAppId,
  appSecret: fakeAppSecret,
  domain: fake.domain,
});

testChannelAdapter<FakeOpenPlatform>({
  name: "feishu (websocket)",
  createFake: () => startFakeOpenPlatform(),
  createAdapter: (fake) => ({ definition: feishu, options: { ...pointedAt(fake), pingTimeoutSeconds: 5 } }),
  capabilities: { idempotentSends: true, threads: true },
});

const encryptKey = "encrypt-key-for-tests";
const webhook = webhookFakes("/lark/events", (url) =>
  startFakeOpenPlatform({ delivery: { mode: "webhook", url, encryptKey } }),
);
testChannelAdapter<FakeOpenPlatform>({
  name: "feishu (webhook)",
  createFake: webhook.createFake,
  createAdapter: (fake) => ({
    definition: feishu,
    options: { ...pointedAt(fake), mode: "webhook", listen: webhook.listen(fake), encryptKey },
  }),
  capabilities: { idempotentSends: true },
});
