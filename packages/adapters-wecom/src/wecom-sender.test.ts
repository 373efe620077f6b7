import { createHash } from "node:crypto";
import type { ChannelAdapter } from "@downcity/core";
import { createRecordingContext, type RecordingContext } from "@downcity/core/test";
import { afterEach, describe, expect, it } from "vitest";
import {
  type FakeWecomPlatform,
  fakeWecomBotId,
  fakeWecomSecret,
  startFakeWecomPlatform,
} from "./test/fake-wecom-platform.js";
import { createWecomAdapter } from "./wecom-adapter.js";

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("sending to WeCom", () => {
  let fake: FakeWecomPlatform;
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const startAdapter = async (
    stateDir?: string,
  ): Promise<{ adapter: ChannelAdapter; recording: RecordingContext }> => {
    const recording = await createRecordingContext({ channel: "wecom", ...(stateDir ? { stateDir } : {}) });
    const adapter = createWecomAdapter({
      botId: fakeWecomBotId,
      secret: fakeWecomSecret,
      wsUrl: fake.wsUrl,
      reconnectDelayMs: 50,
    });
    await adapter.start(recording.context);
    cleanups.push(async () => {
      recording.abort();
      await adapter.stop();
      await recording.dispose();
    });
    return { adapter, recording };
  };
  const open = async (replyWindowMs?: number) => {
    fake = await startFakeWecomPlatform({ quietMs: 500, ...(replyWindowMs ? { replyWindowMs } : {}) });
    cleanups.push(() => fake.close());
  };

  it("pushes a message with no user message to answer as markdown to the chat", async () => {
    await open();
    const { adapter } = await startAdapter();
    await adapter.send(
      { chatId: "wrGroup", chatType: "group" },
      { text: "**daily** report" },
      { idempotencyKey: "k-push" },
    );
    expect(fake.frames().at(-1)).toMatchObject({
      cmd: "aibot_send_msg",
      body: { chatid: "wrGroup", msgtype: "markdown", markdown: { content: "**daily** report" } },
    });
    expect(fake.sent()).toEqual([{ chatId: "wrGroup", text: "**daily** report", format: "markdown" }]);
  });

  it("answers a group message in the group, finishing its thinking bubble", async () => {
    await open();
    const { adapter, recording } = await startAdapter();
    const { eventId } = await fake.deliver({
      chatType: "group",
      chatId: "wrTeam",
      userId: "bob",
      text: "hi",
      mentionBot: true,
    });
    await recording.until(() => fake.typingSeen().length === 1, "the thinking bubble");
    await adapter.send(
      { chatId: "wrTeam", chatType: "group", replyToMessageId: eventId },
      { text: "hello team" },
      { idempotencyKey: "k-group" },
    );
    expect(fake.sent()).toEqual([{ chatId: "wrTeam", text: "hello team", format: "markdown" }]);
    const [reqId] = fake.reqIdsOf(eventId);
    expect(fake.frames().every((frame) => frame.headers?.req_id === reqId)).toBe(true);
  });

  it("pushes to the chat when the user message's req_id no longer takes replies", async () => {
    await open(1);
    const { adapter, recording } = await startAdapter();
    const { eventId } = await fake.deliver({
      chatType: "direct",
      chatId: "ada",
      userId: "ada",
      text: "late",
    });
    await recording.until(() => recording.events.length === 1, "the message");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await adapter.send(
      { chatId: "ada", chatType: "direct", replyToMessageId: eventId },
      { text: "late answer" },
      { idempotencyKey: "k-late" },
    );
    expect(fake.sent()).toEqual([{ chatId: "ada", text: "late answer", format: "markdown" }]);
    expect(fake.frames().at(-1)?.cmd).toBe("aibot_send_msg");
  });

  it("never sends a part again whose key WeCom confirmed, also after a restart", async () => {
    await open();
    const first = await startAdapter();
    const stateDir = first.recording.context.stateDir;
    const target = { chatId: "ada", chatType: "direct" as const };
    await first.adapter.send(target, { text: "once" }, { idempotencyKey: "k-once" });
    await first.adapter.send(target, { text: "once" }, { idempotencyKey: "k-once" });
    await first.adapter.stop();
    const second = await startAdapter(stateDir);
    await second.adapter.send(target, { text: "once" }, { idempotencyKey: "k-once" });
    expect(fake.sent().filter((sent) => sent.text === "once")).toHaveLength(1);
  });

  it("uploads files in chunks over the connection and sends images and files", async () => {
    await open();
    const { adapter } = await startAdapter();
    const big = Buffer.alloc(1_200_000);
    for (let index = 0; index < big.length; index++) big[index] = (index * 31) % 251;
    const image = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const file = (name: string, mediaType: string, data: Buffer) => ({
      name,
      mediaType,
      size: data.length,
      sha256: sha256(data),
      data: new Uint8Array(data),
    });
    await adapter.send(
      { chatId: "ada", chatType: "direct" },
      {
        text: "files",
        attachments: [
          file("chart.png", "image/png", image),
          file("dump.bin", "application/octet-stream", big),
        ],
      },
      { idempotencyKey: "k-files" },
    );
    const files = fake.sent().flatMap((sent) => sent.files ?? []);
    expect(files.map((sent) => [sent.name, sha256(sent.data)])).toEqual([
      ["chart.png", sha256(image)],
      ["dump.bin", sha256(big)],
    ]);
    const types = fake
      .frames()
      .filter((frame) => frame.cmd === "aibot_send_msg")
      .map((frame) => frame.body?.msgtype);
    expect(types).toEqual(["markdown", "image", "file"]);
  });
});
