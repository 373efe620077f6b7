import { testDaemonScenario } from "@downcity/test-support";
import { expect } from "vitest";
import {
  fakeWeixinBotName,
  fakeWeixinToken,
  startFakeWeixinPlatform,
} from "../src/test/fake-weixin-platform.js";

// End to end: the built `downcity` CLI starts a real daemon that loads this adapter by package name and
// long-polls a fake iLink server; the model is a scripted OpenAI-compatible server.
testDaemonScenario({
  platform: "weixin",
  channel: "wechat",
  startFake: () => startFakeWeixinPlatform(),
  configure: (fake) => ({
    options: {
      adapter: "@downcity/adapters-weixin",
      token: "${WEIXIN_BOT_TOKEN}",
      baseUrl: fake.baseUrl,
      cdnBaseUrl: fake.cdnBaseUrl,
      mentionNames: [fakeWeixinBotName],
      reconnectDelayMs: 100,
    },
    env: { WEIXIN_BOT_TOKEN: fakeWeixinToken },
  }),
  // Polling: at least one getupdates answered.
  connected: (fake) => fake.polls().length > 1,
  ids: {
    dmChat: "wxid_ada@im.wechat",
    user: "wxid_ada@im.wechat",
    group: "grp_allowed@chatroom",
    otherGroup: "grp_other@chatroom",
    member: "wxid_bob@im.wechat",
  },
  checkAnswer: (fake, question) => {
    // A passive reply: the question's own context token, and a client_id fixed by the outbox key.
    const request = fake
      .sendRequests()
      .find((sent) => JSON.stringify(sent.body).includes("echo: what is 2+2?"));
    const msg = request?.body.msg as Record<string, unknown>;
    expect(request?.status).toBe("sent");
    expect(msg.context_token).toBe(fake.delivered(question.eventId)?.context_token);
    expect(msg.client_id).toMatch(/^downcity-[0-9a-f]{32}$/);
  },
  redeliver: async (fake, slow) => {
    // The restarted daemon polled from its saved cursor (only the very first poll had none); iLink
    // delivering the event again is deduplicated by the inbox.
    expect(fake.polls().filter((cursor) => cursor === "")).toHaveLength(1);
    expect(await fake.redeliver(slow.eventId)).toBe(true);
  },
  // The bot token and the context tokens never reach a log line.
  secrets: [fakeWeixinToken, /ctx-[0-9a-f]{8}-/],
});
