import { describe, expect, it } from "vitest";
import { createDingtalkTokenSource } from "./dingtalk-token-source.js";
import { mapDingtalkMessage } from "./map-dingtalk-message.js";

const download = {
  apiBase: "http://127.0.0.1:9",
  robotCode: "dingrobot0001",
  tokens: createDingtalkTokenSource({
    apiBase: "http://127.0.0.1:9",
    clientId: "dingrobot0001",
    clientSecret: "x".repeat(20),
  }),
  timeoutMs: 1000,
};
const robot = "$:LWCP_v1:$robot";
const base = {
  msgId: "msgA1",
  conversationId: "cidGroup==",
  senderId: "$:LWCP_v1:$ada",
  senderStaffId: "staff-ada",
  senderNick: "Ada",
  chatbotUserId: robot,
};
const event = (raw: unknown) => {
  const mapped = mapDingtalkMessage(raw, download);
  if ("skipped" in mapped) throw new Error(`skipped: ${mapped.skipped}`);
  return mapped.event;
};

describe("mapDingtalkMessage", () => {
  it("maps a direct text to the sender's staff id, trimmed", () => {
    expect(
      event({
        ...base,
        conversationType: "1",
        conversationId: "cidDirect==",
        msgtype: "text",
        text: { content: " hi there " },
      }),
    ).toMatchObject({
      eventId: "msgA1",
      messageId: "msgA1",
      chatId: "staff-ada",
      chatType: "direct",
      userId: "staff-ada",
      displayName: "Ada",
      text: "hi there",
      mentionedBot: false,
      fromBot: false,
    });
  });

  it("maps a group message to its conversation, mentioned by isInAtList or by the robot in atUsers", () => {
    const group = {
      ...base,
      conversationType: "2",
      conversationTitle: "Ops",
      msgtype: "text",
      text: { content: " status?" },
    };
    expect(event({ ...group, isInAtList: true })).toMatchObject({
      chatId: "cidGroup==",
      chatType: "group",
      chatTitle: "Ops",
      userId: "staff-ada",
      text: "status?",
      mentionedBot: true,
    });
    expect(event({ ...group, atUsers: [{ dingtalkId: robot }] }).mentionedBot).toBe(true);
    expect(
      event({ ...group, isInAtList: false, atUsers: [{ dingtalkId: "$:LWCP_v1:$bob" }] }).mentionedBot,
    ).toBe(false);
  });

  it("adds DingTalk's voice transcript, marked as machine-made, and keeps the audio", () => {
    const voice = event({
      ...base,
      conversationType: "1",
      msgtype: "audio",
      content: { downloadCode: "dl1", duration: 4200, recognition: "book a room for three" },
    });
    expect(voice.text).toBe("[DingTalk's automatic transcript of the voice message: book a room for three]");
    expect(voice.attachments).toEqual([expect.objectContaining({ kind: "voice", durationSeconds: 4.2 })]);
  });

  it("reads pictures, rich text with pictures, videos and files as attachments", () => {
    const direct = { ...base, conversationType: "1" };
    expect(event({ ...direct, msgtype: "picture", content: { downloadCode: "p1" } }).attachments).toEqual([
      expect.objectContaining({ kind: "image" }),
    ]);
    const rich = event({
      ...direct,
      msgtype: "richText",
      content: {
        richText: [{ text: "what is " }, { type: "picture", downloadCode: "p2" }, { text: "this?" }],
      },
    });
    expect(rich.text).toBe("what is this?");
    expect(rich.attachments).toHaveLength(1);
    expect(
      event({ ...direct, msgtype: "file", content: { downloadCode: "f1", fileName: "q3.pdf" } }).attachments,
    ).toEqual([expect.objectContaining({ kind: "file", name: "q3.pdf" })]);
    expect(
      event({ ...direct, msgtype: "video", content: { downloadCode: "v1", duration: 2000 } }).attachments,
    ).toEqual([expect.objectContaining({ kind: "video", durationSeconds: 2 })]);
  });

  it("skips unknown types, empty messages, outsiders' direct messages and malformed payloads", () => {
    const skipped = (raw: unknown) => {
      const mapped = mapDingtalkMessage(raw, download);
      return "skipped" in mapped ? mapped.skipped : undefined;
    };
    expect(skipped({ ...base, conversationType: "1", msgtype: "interactiveCard", content: {} })).toMatch(
      /not read/,
    );
    expect(skipped({ ...base, conversationType: "1", msgtype: "text", text: { content: "  " } })).toMatch(
      /empty/,
    );
    expect(
      skipped({
        ...base,
        senderStaffId: undefined,
        conversationType: "1",
        msgtype: "text",
        text: { content: "hi" },
      }),
    ).toMatch(/outside the organisation/);
    expect(skipped({ hello: "world" })).toMatch(/not a robot message/);
  });

  it("marks the robot's own messages as from a bot", () => {
    expect(
      event({ ...base, senderId: robot, conversationType: "2", msgtype: "text", text: { content: "echo" } })
        .fromBot,
    ).toBe(true);
  });
});
