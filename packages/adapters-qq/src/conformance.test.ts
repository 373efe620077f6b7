import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { testChannelAdapter } from "@downcity/core/test";
import qq from "./index.js";
import {
  type FakeQqPlatform,
  fakeQqAppId,
  fakeQqSecret,
  startFakeQqPlatform,
} from "./test/fake-qq-platform.js";

testChannelAdapter<FakeQqPlatform>({
  name: "qq (websocket)",
  createFake: () => startFakeQqPlatform(),
  createAdapter: (fake) => ({
    definition: qq,
    options: {
      appId: fakeQqAppId,
      clientSecret: fakeQqSecret,
      apiBase: fake.apiBase,
      tokenUrl: fake.tokenUrl,
      reconnectDelayMs: 50,
    },
  }),
  capabilities: { threads: false },
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const ports = new WeakMap<FakeQqPlatform, number>();
testChannelAdapter<FakeQqPlatform>({
  name: "qq (webhook)",
  createFake: async () => {
    const port = await freePort();
    const fake = await startFakeQqPlatform({
      delivery: { mode: "webhook", url: `http://127.0.0.1:${port}/qq/events` },
    });
    ports.set(fake, port);
    return fake;
  },
  createAdapter: (fake) => ({
    definition: qq,
    options: {
      appId: fakeQqAppId,
      clientSecret: fakeQqSecret,
      apiBase: fake.apiBase,
      tokenUrl: fake.tokenUrl,
      mode: "webhook",
      listen: `127.0.0.1:${ports.get(fake)}`,
    },
  }),
  capabilities: { threads: false },
});
