import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createQqAdapter } from "./qq-adapter.js";
import { fakeQqConnection, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("QQ typing", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform() });

  it("sends an input notice (msg_type 6) in direct chats, at most twice per message, and none in groups", async () => {
    const adapter = await bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
      }),
    );
    const typing = adapter.typing as NonNullable<typeof adapter.typing>;
    expect(typing.refreshMs).toBeGreaterThan(0);
    expect(typing.refreshMs).toBeLessThan(60_000);
    const direct = await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "hi" });
    const group = await bed.fake.deliver({
      chatType: "group",
      chatId: "g1",
      userId: "m1",
      text: "hi",
      mentionBot: true,
    });
    for (let renewal = 0; renewal < 3; renewal++)
      await typing.start({ chatId: "u1", chatType: "direct", replyToMessageId: `msg-${direct.eventId}` });
    await typing.start({ chatId: "g1", replyToMessageId: `msg-${group.eventId}` });
    expect(bed.fake.typingNotices()).toEqual([
      { chatId: "u1", msgId: `msg-${direct.eventId}`, inputSecond: 60 },
      { chatId: "u1", msgId: `msg-${direct.eventId}`, inputSecond: 60 },
    ]);
    const seqs = bed.fake.sendRequests().map((request) => request.body.msg_seq);
    expect(new Set(seqs).size).toBe(2);
    // The notice is no reply: the answer still has its five.
    expect(bed.fake.sent()).toHaveLength(0);
  });
});
