import { useRecordingTestBed } from "@downcity/core/test";
import { beforeEach, describe, expect, it } from "vitest";
import { createQqAdapter, type QqAdapter } from "./qq-adapter.js";
import { qqMessageSeq } from "./qq-sender.js";
import { fakeQqConnection, startFakeQqPlatform } from "./test/fake-qq-platform.js";

describe("sending to QQ", () => {
  const bed = useRecordingTestBed({ createFake: () => startFakeQqPlatform() });
  let adapter: QqAdapter;
  beforeEach(async () => {
    adapter = await bed.start(
      createQqAdapter({
        ...fakeQqConnection(bed.fake),
      }),
    );
  });
  const question = async (chatId = "u1") => {
    const { eventId } = await bed.fake.deliver({ chatType: "direct", chatId, userId: chatId, text: "q" });
    return `msg-${eventId}`;
  };

  it("derives a stable msg_seq per outbox key, different for each chunk", () => {
    expect(qqMessageSeq("run-1#0")).toBe(qqMessageSeq("run-1#0"));
    expect(qqMessageSeq("run-1#0")).not.toBe(qqMessageSeq("run-1#0.1"));
    expect(qqMessageSeq("x")).toBeGreaterThanOrEqual(1);
    expect(qqMessageSeq("x")).toBeLessThan(2 ** 31);
  });

  it("sends Markdown as msg_type 2, chunked after rendering within 2000 characters, the code fence reopened", async () => {
    const msgId = await question();
    const code = Array.from({ length: 120 }, (_, line) => `line ${line} of the build log`).join("\n");
    const markdown = `## Build\n\n**Done** in [CI](https://ci.example.com).\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\`\`\`sh\n${code}\n\`\`\``;
    await adapter.send(
      { chatId: "u1", chatType: "direct", replyToMessageId: msgId },
      { text: markdown },
      { idempotencyKey: "r1" },
    );
    const bodies = bed.fake.sendRequests().map((request) => request.body);
    expect(bodies.length).toBeGreaterThan(1);
    const contents = bodies.map((body) => (body.markdown as { content: string }).content);
    for (const body of bodies) expect(body).toMatchObject({ msg_type: 2, msg_id: msgId });
    for (const content of contents) expect(content.length).toBeLessThanOrEqual(2000);
    expect(new Set(bodies.map((body) => body.msg_seq)).size).toBe(bodies.length);
    expect(contents[0]).toContain("**Done** in [CI](https://ci.example.com)");
    // The table became an aligned code block; every chunk's fences are balanced, the second reopens sh.
    expect(contents[0]).not.toContain("|---|");
    for (const content of contents) expect((content.match(/^```/gm) ?? []).length % 2).toBe(0);
    expect(contents[1]?.startsWith("```sh\n")).toBe(true);
  });

  it("downgrades to plain text on the markdown permission error, once for the instance, with a log line", async () => {
    bed.fake.allowMarkdown(false);
    const first = await question();
    await adapter.send(
      { chatId: "u1", replyToMessageId: first },
      { text: "**bold** and `code`" },
      { idempotencyKey: "a" },
    );
    const second = await question();
    await adapter.send(
      { chatId: "u1", replyToMessageId: second },
      { text: "# Title\n\n- item" },
      { idempotencyKey: "b" },
    );
    const bodies = bed.fake.sendRequests().map((request) => request.body);
    expect(bodies.map((body) => body.msg_type)).toEqual([2, 0, 0]);
    // The refused call used no msg_seq: the plain resend keeps it.
    expect(bodies[1]).toMatchObject({ content: "bold and code", msg_id: first, msg_seq: bodies[0]?.msg_seq });
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual(["bold and code", "Title\n\n• item"]);
    const warnings = bed.recording.logs.filter((line) => /no markdown permission/.test(line.message ?? ""));
    expect(warnings).toHaveLength(1);
  });

  it("uploads a file (file_data, no proactive send) and shows it with msg_type 7; a group refuses plain files", async () => {
    const msgId = await question();
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");
    const file = (name: string, mediaType: string, data: Buffer) => ({
      name,
      mediaType,
      data,
      size: data.length,
      sha256: "0".repeat(64),
    });
    await adapter.send(
      { chatId: "u1", chatType: "direct", replyToMessageId: msgId },
      {
        text: "the chart",
        attachments: [
          file("chart.png", "image/png", png),
          file("report.pdf", "application/pdf", Buffer.from("%PDF-1.4")),
        ],
      },
      { idempotencyKey: "f" },
    );
    expect(bed.fake.uploads().map(({ fileType, name, data }) => ({ fileType, name, data }))).toEqual([
      { fileType: 1, name: undefined, data: png },
      { fileType: 4, name: "report.pdf", data: Buffer.from("%PDF-1.4") },
    ]);
    expect(bed.fake.mediaSent().map((media) => media.msgId)).toEqual([msgId, msgId]);
    expect(bed.fake.sent().map((sent) => sent.text)).toEqual([
      "the chart",
      "[media file_type 1]",
      "[media report.pdf]",
    ]);

    const { eventId } = await bed.fake.deliver({
      chatType: "group",
      chatId: "g1",
      userId: "m1",
      text: "pdf?",
      mentionBot: true,
    });
    const refused = await adapter
      .send(
        { chatId: "g1", replyToMessageId: `msg-${eventId}` },
        { text: "", attachments: [file("r.pdf", "application/pdf", Buffer.from("x"))] },
        { idempotencyKey: "g" },
      )
      .catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ name: "ChannelSendError", permanent: true, status: 400 });
    expect((refused as Error).message).toMatch(/files answered 400.*file_type 4 is not open for groups/);
  });

  it("throws a retryable error when the upload fails, and sends no media message", async () => {
    const msgId = await question();
    bed.fake.failNextUploads(1);
    const failed = await adapter
      .send(
        { chatId: "u1", replyToMessageId: msgId },
        {
          text: "",
          attachments: [
            {
              name: "a.png",
              mediaType: "image/png",
              size: 1,
              sha256: "0".repeat(64),
              data: Buffer.from([1]),
            },
          ],
        },
        { idempotencyKey: "u" },
      )
      .catch((caught: unknown) => caught);
    expect(failed).toMatchObject({ name: "ChannelSendError", permanent: false, status: 500 });
    expect(bed.fake.mediaSent()).toHaveLength(0);
  });

  it("reports a 429 with its wait, a send to an unknown chat as permanent, and an outage as retryable", async () => {
    const msgId = await question();
    bed.fake.rateLimitNextSends(1, 1500);
    const limited = await adapter
      .send({ chatId: "u1", replyToMessageId: msgId }, { text: "a" }, { idempotencyKey: "k1" })
      .catch((caught: unknown) => caught);
    expect(limited).toMatchObject({
      name: "ChannelSendError",
      permanent: false,
      retryAfterMs: 1500,
      status: 429,
    });
    const unknown = await adapter
      .send({ chatId: "unknown" }, { text: "a" }, { idempotencyKey: "k2" })
      .catch((caught: unknown) => caught);
    expect(unknown).toMatchObject({ permanent: true });
    expect((unknown as Error).message).toMatch(/has not heard from this chat/);
    await adapter.stop();
    await bed.fake.close();
    const down = await adapter
      .send(
        { chatId: "u1", chatType: "direct", replyToMessageId: msgId },
        { text: "a" },
        { idempotencyKey: "k4" },
      )
      .catch((caught: unknown) => caught);
    expect(down).toMatchObject({ name: "ChannelSendError", permanent: false });
  });
});
