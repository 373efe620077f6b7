import { AttachmentTooLargeError } from "@downcity/core";
import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createFeishuAdapter } from "./feishu-adapter.js";
import { fakeAppId, fakeAppSecret, startFakeOpenPlatform } from "./test/fake-open-platform.js";

// A 1×1 PNG: the bytes a host sniffs as an image.
const png = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082",
  "hex",
);
const signal = () => new AbortController().signal;

describe("feishu media", () => {
  const bed = useRecordingTestBed({
    createFake: () => startFakeOpenPlatform(),
    secrets: [fakeAppSecret, /t-[0-9a-f]{8}-/],
  });
  const start = () =>
    bed.start(createFeishuAdapter({ appId: fakeAppId, appSecret: fakeAppSecret, domain: bed.fake.domain }));

  it("maps an image message to an image attachment downloaded through the message resource API", async () => {
    await start();
    const { acked, messageId } = await bed.fake.deliverMessage({
      chatType: "direct",
      chatId: "oc_dm",
      userId: "ou_ada",
      messageType: "image",
      content: { image_key: "img_v3_1" },
      resources: { img_v3_1: { bytes: png, mediaType: "image/png", type: "image" } },
    });
    expect(acked).toBe(true);
    const [event] = bed.recording.events;
    expect(event).toMatchObject({ chatId: "oc_dm", messageId, text: "", attachments: [{ kind: "image" }] });
    const bytes = await event?.attachments?.[0]?.fetch?.({ maxBytes: 1024, signal: signal() });
    expect(Buffer.from(bytes ?? [])).toEqual(png);
    expect(bed.fake.downloads()).toEqual(["img_v3_1"]);
    // Over the limit: refused from the declared length, before the body is read.
    const tooLarge = await event?.attachments?.[0]
      ?.fetch?.({ maxBytes: 10, signal: signal() })
      .catch((error) => error);
    expect(tooLarge).toBeInstanceOf(AttachmentTooLargeError);
    expect(String((tooLarge as Error).message)).toMatch(/too large/);
  });

  it("keeps every image of a post, its code block fenced and its link's URL, and names a file", async () => {
    await start();
    await bed.fake.deliverMessage({
      chatType: "group",
      chatId: "oc_team",
      userId: "ou_bob",
      mentionBot: true,
      messageType: "post",
      content: {
        title: "",
        content: [
          [
            { tag: "at", user_id: "@_user_1", user_name: "Downcity" },
            { tag: "text", text: " why does this fail?" },
          ],
          [{ tag: "img", image_key: "img_a" }],
          [{ tag: "code_block", language: "TypeScript", text: "const x: number = 'a';\n" }],
          [
            { tag: "a", text: "CI run", href: "https://ci.example/42" },
            { tag: "img", image_key: "img_b" },
          ],
        ],
      },
      resources: {
        img_a: { bytes: png, mediaType: "image/png", type: "image" },
        img_b: { bytes: png, mediaType: "image/png", type: "image" },
      },
    });
    await bed.fake.deliverMessage({
      chatType: "direct",
      chatId: "oc_dm",
      userId: "ou_ada",
      messageType: "file",
      content: { file_key: "file_v3_9", file_name: "notes.txt" },
      resources: { file_v3_9: { bytes: Buffer.from("hello"), mediaType: "text/plain", type: "file" } },
    });
    const [post, file] = bed.recording.events;
    expect(post?.text).toBe(
      "why does this fail?\n\n```typescript\nconst x: number = 'a';\n```\n\n[CI run](https://ci.example/42)",
    );
    expect(post?.attachments?.map((attachment) => attachment.kind)).toEqual(["image", "image"]);
    for (const attachment of post?.attachments ?? [])
      expect(Buffer.from((await attachment.fetch?.({ maxBytes: 1024, signal: signal() })) ?? [])).toEqual(
        png,
      );
    expect(file).toMatchObject({ text: "", attachments: [{ kind: "file", name: "notes.txt" }] });
    const text = await file?.attachments?.[0]?.fetch?.({ maxBytes: 1024, signal: signal() });
    expect(Buffer.from(text ?? []).toString()).toBe("hello");
    expect(bed.fake.downloads()).toEqual(["img_a", "img_b", "file_v3_9"]);
  });

  it("uploads outgoing files and sends them as image and file messages after the text; a refused upload throws", async () => {
    const adapter = await start();
    const file = (name: string, mediaType: string, data: Uint8Array) => ({
      name,
      mediaType,
      size: data.byteLength,
      sha256: "0".repeat(64),
      data,
    });
    await adapter.send(
      { chatId: "oc_dm", chatType: "direct" },
      {
        text: "Here is the chart and the report.",
        attachments: [
          file("chart.png", "image/png", png),
          file("report.pdf", "application/pdf", Buffer.from("%PDF-1.4")),
        ],
      },
      { idempotencyKey: "files-1" },
    );
    expect(bed.fake.messages().map((message) => message.msgType)).toEqual(["interactive", "image", "file"]);
    const [image, pdf] = bed.fake.uploads();
    expect(image).toMatchObject({ kind: "image" });
    expect(Buffer.from(image?.bytes ?? [])).toEqual(png);
    expect(pdf).toMatchObject({ kind: "file", fileType: "pdf", fileName: "report.pdf" });
    expect(bed.fake.messages()[1]?.content).toEqual({ image_key: image?.key });
    expect(bed.fake.messages()[2]?.content).toEqual({ file_key: pdf?.key });

    const refused = await adapter
      .send(
        { chatId: "oc_dm", chatType: "direct" },
        { text: "", attachments: [file("fake.png", "image/png", Buffer.from("not an image"))] },
        { idempotencyKey: "files-2" },
      )
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: "ChannelSendError", permanent: true });
    expect(String((refused as Error).message)).toMatch(/234011/);
    expect(bed.fake.messages()).toHaveLength(3);
  });

  it("gives the quoted message's text with a reply: a user's text, or the markdown of the bot's card", async () => {
    const adapter = await start();
    const first = await bed.fake.deliver({
      chatType: "direct",
      chatId: "oc_dm",
      userId: "ou_ada",
      text: "the plan",
    });
    const answer = await adapter.send(
      { chatId: "oc_dm", chatType: "direct", replyToMessageId: `om_${first.eventId}` },
      { text: "**Step 1**: build" },
      { idempotencyKey: "quote-1" },
    );
    for (const parentId of [`om_${first.eventId}`, answer.messageId ?? ""])
      await bed.fake.deliverMessage({
        chatType: "direct",
        chatId: "oc_dm",
        userId: "ou_ada",
        messageType: "text",
        content: { text: "and then?" },
        parentId,
      });
    expect(bed.recording.events.slice(1).map((event) => [event.text, event.quotedText])).toEqual([
      ["and then?", "the plan"],
      ["and then?", "**Step 1**: build"],
    ]);
  });
});
