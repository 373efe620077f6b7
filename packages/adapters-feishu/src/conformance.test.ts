import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { testChannelAdapter } from "@downcity/core/test";
import feishu from "./index.js";
import {
  type FakeOpenPlatform,
  fakeAppId,
  fakeAppSecret,
  startFakeOpenPlatform,
} from "./test/fake-open-platform.js";

testChannelAdapter<FakeOpenPlatform>({
  name: "feishu (websocket)",
  createFake: () => startFakeOpenPlatform(),
  createAdapter: (fake) => ({
    definition: feishu,
    options: { appId: fakeAppId, appSecret: fakeAppSecret, domain: fake.domain, pingTimeoutSeconds: 5 },
  }),
  capabilities: { idempotentSends: true, threads: true },
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const encryptKey = "encrypt-key-for-tests";
const ports = new WeakMap<FakeOpenPlatform, number>();
testChannelAdapter<FakeOpenPlatform>({
  name: "feishu (webhook)",
  createFake: async () => {
    const port = await freePort();
    const fake = await startFakeOpenPlatform({
      delivery: { mode: "webhook", url: `http://127.0.0.1:${port}/lark/events`, encryptKey },
    });
    ports.set(fake, port);
    return fake;
  },
  createAdapter: (fake) => ({
    definition: feishu,
    options: {
      appId: fakeAppId,
      appSecret: fakeAppSecret,
      domain: fake.domain,
      mode: "webhook",
      listen: `127.0.0.1:${ports.get(fake)}`,
      encryptKey,
    },
  }),
  capabilities: { idempotentSends: true },
});
