import { testDaemonScenario } from "@downcity/test-support";
import { expect } from "vitest";
import {
  fakeWecomBotId,
  fakeWecomBotName,
  fakeWecomSecret,
  startFakeWecomPlatform,
} from "../src/test/fake-wecom-platform.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name; the
// official SDK holds the long connection to a fake WeCom on 127.0.0.1; the model is a scripted server.
testDaemonScenario({
  platform: "wecom",
  channel: "wecom",
  startFake: () => startFakeWecomPlatform({ quietMs: 1500 }),
  configure: (fake) => ({
    options: {
      adapter: "@downcity/adapters-wecom",
      botId: "${WECOM_BOT_ID}",
      secret: "${WECOM_BOT_SECRET}",
      botName: fakeWecomBotName,
      wsUrl: fake.wsUrl,
      reconnectDelayMs: 100,
    },
    env: { WECOM_BOT_ID: fakeWecomBotId, WECOM_BOT_SECRET: fakeWecomSecret },
  }),
  connected: (fake) => fake.openConnections() > 0 && fake.stats().subscriptions > 0,
  // A WeCom direct chat is its user: the chat id is the sender's userid.
  ids: { dmChat: "ada", user: "ada", group: "wrGroupAllowed", otherGroup: "wrGroupOther", member: "bob" },
  checkAnswer: (fake, question) => {
    // The answer finished the thinking bubble opened on the question's req_id: one stream, two frames.
    const [reqId] = fake.reqIdsOf(question.eventId);
    const frames = fake.frames().filter((frame) => frame.headers?.req_id === reqId);
    const streams = frames.map(
      (frame) => frame.body?.stream as { id: string; finish: boolean; content: string },
    );
    expect(streams.at(0)?.finish).toBe(false);
    expect(streams.at(-1)).toMatchObject({
      finish: true,
      content: "echo: what is 2+2?",
      id: streams.at(0)?.id,
    });
  },
  redeliver: async (fake, slow) => {
    // WeCom pushes the message again (same msgid, new req_id); the inbox knows it: no second answer.
    expect(await fake.redeliver(slow.eventId)).toBe(true);
    expect(fake.reqIdsOf(slow.eventId).length).toBeGreaterThanOrEqual(2);
  },
  // The bot secret never reaches a log line.
  secrets: [fakeWecomSecret],
});
