import { testDaemonScenario } from "@downcity/test-support";
import { expect } from "vitest";
import {
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "../src/test/fake-dingtalk-platform.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and holds
// the Stream connection (the official SDK) to a fake DingTalk; the model is a scripted OpenAI-compatible server.
testDaemonScenario({
  platform: "dingtalk",
  channel: "dingtalk",
  startFake: () => startFakeDingtalkPlatform(),
  configure: (fake) => ({
    options: {
      adapter: "@downcity/adapters-dingtalk",
      clientId: "${DINGTALK_CLIENT_ID}",
      clientSecret: "${DINGTALK_CLIENT_SECRET}",
      apiBase: fake.apiBase,
      oapiBase: fake.apiBase,
      reconnectDelayMs: 100,
    },
    env: { DINGTALK_CLIENT_ID: fakeDingtalkClientId, DINGTALK_CLIENT_SECRET: fakeDingtalkSecret },
  }),
  connected: (fake) => fake.openConnections() > 0,
  ids: {
    dmChat: "manager4721",
    user: "manager4721",
    group: "cidAllowedGroup0001==",
    otherGroup: "cidOtherGroup0002==",
    member: "staff0815",
  },
  checkAnswer: (fake) => {
    // A direct answer goes to the user's staff id through batchSend, as sampleMarkdown.
    const request = fake.robotSends().find((sent) => sent.msgParam.text === "echo: what is 2+2?");
    expect(request?.path).toBe("/v1.0/robot/oToMessages/batchSend");
    expect(request?.body).toMatchObject({
      robotCode: fakeDingtalkClientId,
      userIds: ["manager4721"],
      msgKey: "sampleMarkdown",
    });
    expect(request?.msgParam.title).toBe("echo: what is 2+2?");
  },
  redeliver: async (fake, slow) => {
    // The restarted daemon holds a new connection; a redelivery of the event is known to the inbox and acknowledged.
    expect(fake.stats().gatewayOpens).toBeGreaterThanOrEqual(2);
    expect(await fake.redeliver(slow.eventId)).toBe(true);
  },
  // The client secret and access tokens never reach a log line.
  secrets: [fakeDingtalkSecret, "dttok-"],
});
