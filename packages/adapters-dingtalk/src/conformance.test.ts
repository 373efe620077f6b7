import { testChannelAdapter } from "@downcity/core/test";
import dingtalk from "./index.js";
import {
  type FakeDingtalkPlatform,
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "./test/fake-dingtalk-platform.js";

// The real dingtalk-stream SDK against the fake platform, through the shared channel conformance suite.
testChannelAdapter<FakeDingtalkPlatform>({
  name: "dingtalk",
  createFake: () => startFakeDingtalkPlatform(),
  createAdapter: (fake) => ({
    definition: dingtalk,
    options: {
      clientId: fakeDingtalkClientId,
      clientSecret: fakeDingtalkSecret,
      apiBase: fake.apiBase,
      oapiBase: fake.apiBase,
      reconnectDelayMs: 50,
    },
  }),
  capabilities: {
    threads: false,
    idempotentSends: false,
    attachmentsOut: true,
    format: "markdown",
    polls: true,
  },
});
