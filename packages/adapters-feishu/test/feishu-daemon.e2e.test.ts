import { testDaemonScenario } from "@downcity/test-support";
import { expect } from "vitest";
import { fakeAppId, fakeAppSecret, startFakeOpenPlatform } from "../src/test/fake-open-platform.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and holds
// the SDK's long connection to a fake open platform; the model is a scripted OpenAI-compatible server.
testDaemonScenario({
  platform: "feishu",
  channel: "lark",
  startFake: () => startFakeOpenPlatform(),
  configure: (fake) => ({
    options: {
      adapter: "@downcity/adapters-feishu",
      appId: "${LARK_APP_ID}",
      appSecret: "${LARK_APP_SECRET}",
      domain: fake.domain,
      pingTimeoutSeconds: 5,
    },
    env: { LARK_APP_ID: fakeAppId, LARK_APP_SECRET: fakeAppSecret },
  }),
  connected: (fake) => fake.openConnections() > 0,
  ids: {
    dmChat: "oc_dm_ada",
    user: "ou_ada",
    group: "oc_group_allowed",
    otherGroup: "oc_other_group",
    member: "ou_bob",
  },
  threadId: "omt_7",
  checkAnswer: (fake, question) => {
    // Sent as a reply to the question, with the outbox key as Lark's uuid.
    const request = fake
      .sendRequests()
      .find((sent) => String(sent.body.content).includes("echo: what is 2+2?"));
    expect(request?.path).toBe(`/open-apis/im/v1/messages/om_${question.eventId}/reply`);
    expect(typeof request?.body.uuid).toBe("string");
  },
  redeliver: async (fake, slow) => {
    // Lark retries an event whose ack it did not see; the inbox knows it already.
    expect((await fake.deliver({ ...slow.message, eventId: slow.eventId })).acked).toBe(true);
  },
  // The app secret and tenant tokens never reach a log line.
  secrets: [fakeAppSecret, /\bt-[0-9a-f]{8}-/],
});
