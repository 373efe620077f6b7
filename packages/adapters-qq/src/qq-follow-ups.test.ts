import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { useRecordingTestBed } from "@downcity/core/test";
import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { createQqAdapter } from "./qq-adapter.js";
import { fakeQqConnection, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("QQ follow-ups without a message to reply to", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform() });
  const start = async (restarted = false) => {
    if (restarted) await bed.restart();
    return bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
        reconnectDelayMs: 20,
      }),
    );
  };
  const say = async (text: string, chatType: "direct" | "group" = "direct") => {
    const { eventId } = await bed.fake.deliver(
      chatType === "direct"
        ? { chatType, chatId: "u1", userId: "u1", text }
        : { chatType, chatId: "g1", userId: "m1", text, mentionBot: true },
    );
    return `msg-${eventId}`;
  };
  const pendingFile = async () =>
    JSON.parse(
      await readFile(join(bed.recording.context.stateDir, "qq-pending.json"), "utf8").catch(() => "{}"),
    );

  it("replies to the chat's newest message while it is open, instead of a proactive message", async () => {
    const adapter = await start();
    const last = await say("run the build");
    await adapter.send({ chatId: "u1" }, { text: "your build finished" }, { idempotencyKey: "shell-exit#0" });
    expect(bed.fake.sendRequests().at(-1)?.body).toMatchObject({ msg_id: last });
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["your build finished"]);
  });

  it("keeps a refused proactive follow-up (40034102) and sends it as a reply to the user's next message, after a restart too", async () => {
    const first = await start();
    const old = await say("run the build", "group");
    bed.fake.expireMessage(old);
    // The trigger's 5 minutes passed: the reply goes proactive, the platform refuses, the message is kept.
    const result = await first.send(
      { chatId: "g1", replyToMessageId: old },
      { text: "**your build finished** (exit 0)" },
      { idempotencyKey: "shell-exit#0" },
    );
    expect(result).toEqual({});
    const refused = bed.fake.sendRequests().at(-1);
    expect(refused?.body.msg_id).toBeUndefined();
    expect(bed.fake.sent()).toHaveLength(0);
    expect((await pendingFile()).g1).toMatchObject([{ key: "shell-exit#0", chatType: "group", attempts: 0 }]);
    expect(bed.recording.logs.some((line) => /kept it to send as a reply/.test(line.message ?? ""))).toBe(
      true,
    );

    await first.stop();
    const second = await start(true);
    // The restarted adapter still knows g1 is a group (its state folder says so) for a task notice.
    await second.send({ chatId: "g1" }, { text: "task done" }, { idempotencyKey: "task#0" });
    const next = await say("anything new?", "group");
    await until(() => bed.fake.sent().length === 2, "the kept follow-ups");
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual([
      "**your build finished** (exit 0)",
      "task done",
    ]);
    const replies = bed.fake.sendRequests().slice(-2);
    for (const reply of replies) expect(reply.body).toMatchObject({ msg_type: 2, msg_id: next });
    await until(async () => JSON.stringify(await pendingFile()) === "{}", "the kept follow-up removed");
  });

  it("keeps a file of a refused follow-up with its bytes, and a second follow-up waits when the budget is spent", async () => {
    const adapter = await start();
    const old = await say("make me a chart");
    bed.fake.expireMessage(old);
    const png = Buffer.from("89504e470d0a1a0a", "hex");
    await adapter.send(
      { chatId: "u1", replyToMessageId: old },
      {
        text: "here it is",
        attachments: [{ name: "c.png", mediaType: "image/png", size: 8, sha256: "0".repeat(64), data: png }],
      },
      { idempotencyKey: "task#0" },
    );
    await adapter.send({ chatId: "u1" }, { text: "and one more thing" }, { idempotencyKey: "task#1" });
    expect(Object.keys((await pendingFile()).u1)).toHaveLength(2);

    const next = await say("hi");
    await until(() => bed.fake.mediaSent().length === 1, "the kept file");
    expect(bed.fake.uploads()[0]?.data).toEqual(png);
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["here it is", "[media file_type 1]"]);
    await until(async () => (await pendingFile()).u1?.length === 1, "the first follow-up removed");
    // Two replies were spent on this message; the second follow-up goes with the next one.
    await say("and now?");
    await until(() => bed.fake.sent().length === 3, "the second follow-up");
    expect(bed.fake.sent()[2]?.text).toBe("and one more thing");
    expect(bed.fake.sendRequests().some((request) => request.body.msg_id === next)).toBe(true);
  });

  it("sends proactively where the platform allows it", async () => {
    const adapter = await start();
    const old = await say("hello");
    bed.fake.expireMessage(old);
    bed.fake.allowProactive(true);
    await adapter.send({ chatId: "u1" }, { text: "a proactive notice" }, { idempotencyKey: "p#0" });
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["a proactive notice"]);
    expect(bed.fake.sendRequests().at(-1)?.body.msg_id).toBeUndefined();
    expect(await pendingFile()).toEqual({});
  });
});
