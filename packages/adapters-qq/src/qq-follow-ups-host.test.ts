import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentRuntime,
  type ChannelHost,
  createAgentRuntime,
  createChannelHost,
  silentLogger,
} from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import qq from "./index.js";
import {
  type FakeQqPlatform,
  fakeQqAppId,
  fakeQqSecret,
  startFakeQqPlatform,
} from "./test/fake-qq-platform.js";

interface Bed {
  root: string;
  fake: FakeQqPlatform;
  runtime: AgentRuntime;
  host: ChannelHost;
}
let bed: Bed | undefined;

afterEach(async () => {
  if (!bed) return;
  await bed.host.close();
  await bed.runtime.close();
  await bed.fake.close();
  await rm(bed.root, { recursive: true, force: true });
  bed = undefined;
});

async function start(): Promise<Bed> {
  const root = await mkdtemp(join(tmpdir(), "downcity-qq-follow-ups-"));
  const fake = await startFakeQqPlatform();
  // The model answers the follow-up run with the news, and any user message with an echo.
  const scripted = createScriptedModel([], {
    fallback: (call) => {
      const last = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
      return last.includes("exited with code 0") ? "Your build finished: all green." : `echo: ${last}`;
    },
  });
  const runtime = createAgentRuntime({ rootDir: root, model: scripted.model, logger: silentLogger });
  const host = await createChannelHost({
    rootDir: root,
    runtime,
    logger: silentLogger,
    retryDelayMs: 100,
    channels: [
      {
        name: "qq",
        source: "@downcity/adapters-qq",
        definition: qq,
        options: {
          appId: fakeQqAppId,
          clientSecret: fakeQqSecret,
          apiBase: fake.apiBase,
          tokenUrl: fake.tokenUrl,
          reconnectDelayMs: 50,
        },
        access: { dm: "open", groups: "open" },
      },
    ],
  });
  await host.start();
  bed = { root, fake, runtime, host };
  return bed;
}

describe("a QQ follow-up through the channel host", () => {
  it("is kept when QQ refuses the proactive message and arrives with the user's next message, never dead-lettered", async () => {
    const { fake, host } = await start();
    const texts = () => fake.sent().map((sent) => sent.text);
    const { eventId } = await fake.deliver({
      chatType: "direct",
      chatId: "u1",
      userId: "u1",
      text: "start the build",
    });
    await until(() => texts().includes("echo: start the build"), "the first answer");
    // An hour later: the user's message can no longer be answered.
    fake.expireMessage(`msg-${eventId}`);

    // A background job's exit comes back to the chat as a message of its own, with no platform message to reply to.
    const { id } = await host.submit({
      channel: "qq",
      contextId: "qq:u1",
      message: { text: "[shell job exited with code 0]", chatId: "u1", chatType: "direct" },
    });
    await host.result(id);
    await until(
      async () => (await host.outbox.list()).length === 0 || undefined,
      "the follow-up handed over",
    );
    expect(texts()).not.toContain("Your build finished: all green.");
    expect(await host.outbox.list({ dead: true })).toEqual([]);

    const next = await fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "any news?" });
    await until(() => texts().includes("echo: any news?"), "the answer to the next message");
    await until(() => texts().includes("Your build finished: all green."), "the kept follow-up");
    // A reply to the expired message (refused), a proactive message (refused), then a reply to the new one.
    const attempts = fake
      .sendRequests()
      .filter((request) => JSON.stringify(request.body).includes("all green"));
    expect(attempts.map((request) => request.body.msg_id)).toEqual([
      `msg-${eventId}`,
      undefined,
      `msg-${next.eventId}`,
    ]);
    expect(texts().filter((text) => text === "Your build finished: all green.")).toHaveLength(1);
  });
});
