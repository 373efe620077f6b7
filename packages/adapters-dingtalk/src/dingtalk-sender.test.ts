import { createHash } from "node:crypto";
import { type ChannelMessageFile, ChannelSendError } from "@downcity/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDingtalkSender, markdownTitle } from "./dingtalk-sender.js";
import { createDingtalkTokenSource } from "./dingtalk-token-source.js";
import {
  type FakeDingtalkPlatform,
  fakeDingtalkClientId,
  fakeDingtalkSecret,
  startFakeDingtalkPlatform,
} from "./test/fake-dingtalk-platform.js";

const fileOf = (name: string, mediaType: string, data: Buffer): ChannelMessageFile => ({
  name,
  mediaType,
  size: data.length,
  sha256: createHash("sha256").update(data).digest("hex"),
  data,
});
const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489", "hex");

describe("the DingTalk sender against the fake OpenAPI", () => {
  let fake: FakeDingtalkPlatform;
  const senderFor = (options: { markdown?: boolean; secret?: string } = {}) =>
    createDingtalkSender({
      apiBase: fake.apiBase,
      oapiBase: fake.apiBase,
      robotCode: fakeDingtalkClientId,
      markdown: options.markdown ?? true,
      tokens: createDingtalkTokenSource({
        apiBase: fake.apiBase,
        clientId: fakeDingtalkClientId,
        clientSecret: options.secret ?? fakeDingtalkSecret,
      }),
    });
  beforeEach(async () => {
    fake = await startFakeDingtalkPlatform();
  });
  afterEach(() => fake.close());

  it("sends Markdown to a group as sampleMarkdown titled by its first line, and plain text when Markdown is off", async () => {
    await senderFor()(
      { chatId: "cidTeam==", chatType: "group" },
      { text: "## Deploy **done**\n\n- all green" },
      "k1",
    );
    const [markdown] = fake.robotSends();
    expect(markdown?.path).toBe("/v1.0/robot/groupMessages/send");
    expect(markdown?.body).toMatchObject({
      openConversationId: "cidTeam==",
      robotCode: fakeDingtalkClientId,
    });
    expect(markdown?.msgParam).toEqual({ title: "Deploy done", text: "## Deploy **done**\n\n- all green" });

    await senderFor({ markdown: false })({ chatId: "staff1" }, { text: "plain words" }, "k2");
    expect(fake.robotSends()[1]).toMatchObject({
      path: "/v1.0/robot/oToMessages/batchSend",
      body: { userIds: ["staff1"], msgKey: "sampleText" },
      msgParam: { content: "plain words" },
    });
    expect(markdownTitle("x".repeat(50))).toHaveLength(30);
  });

  it("uploads files and sends pictures as sampleImageMsg, others as sampleFile, bytes intact", async () => {
    const pdf = Buffer.from("%PDF-1.4\n% report\n");
    await senderFor()(
      { chatId: "staff1", chatType: "direct" },
      {
        text: "",
        attachments: [fileOf("chart.png", "image/png", png), fileOf("q3.pdf", "application/pdf", pdf)],
      },
      "k3",
    );
    expect(fake.robotSends().map((sent) => sent.body.msgKey)).toEqual(["sampleImageMsg", "sampleFile"]);
    expect(fake.robotSends()[1]?.msgParam).toMatchObject({ fileName: "q3.pdf", fileType: "pdf" });
    const files = fake.sent().flatMap((sent) => sent.files ?? []);
    expect(files.map((file) => Buffer.from(file.data))).toEqual([png, pdf]);
  });

  it("after a 429 on a later part, the retry sends only what DingTalk did not take", async () => {
    const send = senderFor();
    fake.rateLimitSendsAfter(1, 1, 200);
    const message = { text: "here it is", attachments: [fileOf("chart.png", "image/png", png)] };
    const failure = await send({ chatId: "staff2", chatType: "direct" }, message, "k4").catch(
      (error) => error,
    );
    expect(failure).toBeInstanceOf(ChannelSendError);
    expect(failure).toMatchObject({ retryAfterMs: 200, permanent: false });
    await send({ chatId: "staff2", chatType: "direct" }, message, "k4");
    expect(fake.robotSends().map((sent) => sent.body.msgKey)).toEqual(["sampleMarkdown", "sampleImageMsg"]);
  });

  it("fetches a new token once DingTalk calls the old one invalid", async () => {
    const send = senderFor();
    await send({ chatId: "staff3", chatType: "direct" }, { text: "one" }, "k5");
    fake.revokeTokens();
    await send({ chatId: "staff3", chatType: "direct" }, { text: "two" }, "k6");
    expect(fake.tokensIssued()).toBe(2);
    expect(fake.sent().map((sent) => sent.text)).toEqual(["one", "two"]);
  });

  it("reports refused credentials as a permanent failure that names the fix and never the secret", async () => {
    const failure = (await senderFor({ secret: "wrongSecret-0123456789abcdef" })(
      { chatId: "staff4", chatType: "direct" },
      { text: "hello" },
      "k7",
    ).catch((error: unknown) => error)) as ChannelSendError;
    expect(failure).toMatchObject({ permanent: true, status: 400 });
    expect(failure.message).toMatch(/clientId and clientSecret/);
    expect(failure.message).not.toContain("wrongSecret");
  });
});
