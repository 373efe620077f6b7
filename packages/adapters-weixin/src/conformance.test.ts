import { testChannelAdapter } from "@downcity/core/test";
import weixin from "./index.js";
import {
  type FakeWeixinPlatform,
  fakeWeixinBotName,
  fakeWeixinToken,
  startFakeWeixinPlatform,
} from "./test/fake-weixin-platform.js";

testChannelAdapter<FakeWeixinPlatform>({
  name: "weixin (iLink long poll)",
  createFake: () => startFakeWeixinPlatform(),
  createAdapter: (fake) => ({
    definition: weixin,
    options: {
      token: fakeWeixinToken,
      baseUrl: fake.baseUrl,
      cdnBaseUrl: fake.cdnBaseUrl,
      mentionNames: [fakeWeixinBotName],
      reconnectDelayMs: 50,
    },
  }),
  capabilities: { threads: false, format: "plain", polls: true, attachmentsOut: true },
});
