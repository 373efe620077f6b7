import { testDaemonScenario } from "@downcity/test-support";
import { expect } from "vitest";
import { fakeQqAppId, fakeQqSecret, startFakeQqPlatform } from "../src/test/fake-qq-platform.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and holds
// the gateway connection to a fake QQ platform; the model is a scripted OpenAI-compatible server.
testDaemonScenario({
  platform: "qq",
  channel: "qq",
  startFake: () => startFakeQqPlatform({ heartbeatIntervalMs: 200 }),
  configure: (fake) => ({
    options: {
      adapter: "@downcity/adapters-qq",
      appId: "${QQ_APP_ID}",
      clientSecret: "${QQ_CLIENT_SECRET}",
      apiBase: fake.apiBase,
      tokenUrl: fake.tokenUrl,
      reconnectDelayMs: 100,
    },
    env: { QQ_APP_ID: fakeQqAppId, QQ_CLIENT_SECRET: fakeQqSecret },
  }),
  // The gateway session: connected and identified.
  connected: (fake) => fake.openConnections() > 0 && fake.stats().identifies > 0,
  ids: {
    dmChat: "USEROPENIDADA",
    user: "USEROPENIDADA",
    group: "GROUPOPENIDALLOWED",
    otherGroup: "GROUPOPENIDOTHER",
    member: "MEMBEROPENIDBOB",
  },
  checkAnswer: (fake, question) => {
    // Sent as a reply to the question: its msg_id and a msg_seq fixed by the outbox key.
    // QQ markdown (msg_type 2) while the bot may send it.
    const request = fake
      .sendRequests()
      .find(
        (sent) => (sent.body.markdown as { content?: string } | undefined)?.content === "echo: what is 2+2?",
      );
    expect(request?.path).toBe("/v2/users/USEROPENIDADA/messages");
    expect(request?.body).toMatchObject({ msg_type: 2, msg_id: `msg-${question.eventId}` });
    expect(typeof request?.body.msg_seq).toBe("number");
  },
  redeliver: async (fake, slow) => {
    // The restarted daemon resumed the saved session; a redelivery of the event is known to the inbox.
    expect(fake.stats().identifies).toBe(1);
    expect(fake.stats().resumes.length).toBeGreaterThanOrEqual(1);
    expect(await fake.redeliver(slow.eventId)).toBe(true);
  },
  // The client secret and access tokens never reach a log line.
  secrets: [fakeQqSecret, "qqtok-"],
});
