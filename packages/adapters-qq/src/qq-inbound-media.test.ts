import { AttachmentTooLargeError, type ChannelAttachment } from "@downcity/core";
import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createQqAdapter } from "./qq-adapter.js";
import { fakeQqConnection, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("media QQ users send", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform() });
  const start = () =>
    bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
        reconnectDelayMs: 20,
      }),
    );
  const fetchOf = (attachment: ChannelAttachment | undefined, maxBytes: number) => {
    if (!attachment?.fetch) throw new Error("the attachment has no fetch");
    return attachment.fetch({ maxBytes, signal: AbortSignal.timeout(5000) });
  };

  it("hands a group image with text to the inbox with a fetch of its URL, within the size limit", async () => {
    await start();
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001", "hex");
    const url = bed.fake.hostFile(png, "image/png");
    const { acked } = await bed.fake.deliver({
      chatType: "group",
      chatId: "g1",
      userId: "m1",
      text: "what is this?",
      mentionBot: true,
      attachments: [
        { content_type: "image/png", url, filename: "shot.png", size: png.length, width: 1, height: 1 },
      ],
    });
    expect(acked).toBe(true);
    const [event] = bed.recording.events;
    expect(event).toMatchObject({ chatType: "group", text: "what is this?" });
    expect(event?.attachments).toMatchObject([
      { kind: "image", mediaType: "image/png", name: "shot.png", size: png.length },
    ]);
    expect(Buffer.from(await fetchOf(event?.attachments?.[0], 1024))).toEqual(png);
    await expect(fetchOf(event?.attachments?.[0], 8)).rejects.toBeInstanceOf(AttachmentTooLargeError);
    expect(bed.fake.downloads(url)).toBe(2);
  });

  it("keeps a file sent without text, and ignores a message with neither text nor attachments", async () => {
    await start();
    const url = bed.fake.hostFile(Buffer.from("%PDF-1.4 report"), "application/pdf");
    await bed.fake.deliver({ chatType: "direct", chatId: "u1", userId: "u1", text: "", nonText: true });
    await bed.fake.deliver({
      chatType: "direct",
      chatId: "u1",
      userId: "u1",
      text: "",
      attachments: [{ content_type: "file", url, filename: "report.pdf", size: 15 }],
    });
    expect(bed.recording.events).toHaveLength(1);
    expect(bed.recording.events[0]).toMatchObject({
      text: "",
      attachments: [{ kind: "file", name: "report.pdf", size: 15 }],
    });
    expect(Buffer.from(await fetchOf(bed.recording.events[0]?.attachments?.[0], 1024)).toString()).toBe(
      "%PDF-1.4 report",
    );
  });
});
