import { describe, expect, it } from "vitest";
import { mapQqEvent } from "./map-qq-event.js";

describe("mapQqEvent", () => {
  it("maps a C2C message to a direct chat keyed by the user's openid", () => {
    expect(
      mapQqEvent("C2C_MESSAGE_CREATE", "C2C_MESSAGE_CREATE:abc", {
        id: "ROBOT1.0_abc",
        author: { user_openid: "E4F4AEA33253A2797FB897C50B81D7ED" },
        content: " 你好 ",
        timestamp: "2024-11-19T10:00:00+08:00",
      }),
    ).toEqual({
      event: {
        eventId: "C2C_MESSAGE_CREATE:abc",
        chatId: "E4F4AEA33253A2797FB897C50B81D7ED",
        chatType: "direct",
        userId: "E4F4AEA33253A2797FB897C50B81D7ED",
        text: "你好",
        messageId: "ROBOT1.0_abc",
        mentionedBot: false,
        fromBot: false,
      },
      sentAt: Date.parse("2024-11-19T10:00:00+08:00"),
    });
  });

  it("maps a group @-message to a group chat with a mention (member_openid is the user)", () => {
    expect(
      mapQqEvent("GROUP_AT_MESSAGE_CREATE", undefined, {
        id: "m1",
        author: { member_openid: "M1" },
        group_openid: "G1",
        content: " <@!123> status",
      })?.event,
    ).toMatchObject({
      eventId: "m1",
      chatId: "G1",
      chatType: "group",
      userId: "M1",
      text: "status",
      mentionedBot: true,
    });
  });

  it("maps images, files and voice notes to attachments (a message without text is kept), with QQ's transcript", () => {
    const mapped = mapQqEvent("C2C_MESSAGE_CREATE", "x", {
      id: "m",
      author: { user_openid: "U" },
      content: "",
      attachments: [
        {
          content_type: "image/png",
          url: "https://multimedia.example/a.png",
          filename: "a.png",
          size: "2048",
          width: 10,
          height: 10,
        },
        { content_type: "file", url: "//multimedia.example/r.pdf", filename: "r.pdf", size: 99 },
        {
          content_type: "voice",
          url: "https://multimedia.example/v.silk",
          voice_wav_url: "https://multimedia.example/v.wav",
          asr_refer_text: "build it",
          size: 5,
        },
        { content_type: "image/png" },
      ],
    });
    expect(mapped?.event.text).toBe("[QQ's automatic transcript of the voice message: build it]");
    expect(mapped?.event.attachments).toEqual([
      { kind: "image", mediaType: "image/png", name: "a.png", size: 2048, fetch: expect.any(Function) },
      { kind: "file", name: "r.pdf", size: 99, fetch: expect.any(Function) },
      // The WAV rendition is fetched; the size QQ states is the SILK original's, so it is left out.
      { kind: "voice", mediaType: "audio/wav", fetch: expect.any(Function) },
      // No URL: the host cannot download it and tells the user so.
      { kind: "image", mediaType: "image/png" },
    ]);
  });

  it("ignores other event types, messages with neither text nor attachments and malformed payloads", () => {
    expect(
      mapQqEvent("GROUP_MESSAGE_CREATE", "x", {
        id: "m",
        author: { member_openid: "M" },
        group_openid: "G",
        content: "hi",
      }),
    ).toBeUndefined();
    expect(
      mapQqEvent("C2C_MESSAGE_CREATE", "x", {
        id: "m",
        author: { user_openid: "U" },
        content: "  ",
        attachments: [],
      }),
    ).toBeUndefined();
    expect(mapQqEvent("C2C_MESSAGE_CREATE", "x", { id: "m" })).toBeUndefined();
  });
});
