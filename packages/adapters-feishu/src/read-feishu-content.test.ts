import { describe, expect, it } from "vitest";
import { readFeishuContent } from "./read-feishu-content.js";

const read = (type: string, content: unknown) => readFeishuContent(type, JSON.stringify(content));

describe("readFeishuContent", () => {
  it("reads each media message as one attachment with its resource key and type", () => {
    expect(read("image", { image_key: "img_1" })).toEqual({
      text: "",
      attachments: [{ kind: "image", resource: { key: "img_1", type: "image" } }],
    });
    expect(read("file", { file_key: "file_1", file_name: "a.zip" })?.attachments).toEqual([
      { kind: "file", name: "a.zip", resource: { key: "file_1", type: "file" } },
    ]);
    expect(read("audio", { file_key: "file_2", duration: 2500 })?.attachments).toEqual([
      { kind: "voice", durationSeconds: 2.5, resource: { key: "file_2", type: "file" } },
    ]);
    expect(
      read("media", { file_key: "file_3", image_key: "img_c", file_name: "v.mp4", duration: 1000 })
        ?.attachments,
    ).toEqual([
      { kind: "video", name: "v.mp4", durationSeconds: 1, resource: { key: "file_3", type: "file" } },
    ]);
    expect(read("sticker", { file_key: "file_4" })?.attachments).toEqual([
      { kind: "sticker", emoji: "a Feishu sticker (bots cannot download its image)" },
    ]);
    expect(read("location", { name: "Office", latitude: "31.2", longitude: "121.5" })?.attachments).toEqual([
      { kind: "location", location: { latitude: 31.2, longitude: 121.5, title: "Office" } },
    ]);
    expect(read("image", {})).toBeUndefined();
    expect(read("hongbao", { text: "x" })).toBeUndefined();
  });

  it("keeps every image and video of a post, its code blocks fenced, its styles and links", () => {
    const reading = read("post", {
      title: "Bug",
      content: [
        [
          { tag: "text", text: "see ", style: [] },
          { tag: "text", text: "this", style: ["bold"] },
          { tag: "a", text: "log", href: "https://logs.example/1" },
        ],
        [{ tag: "img", image_key: "img_a" }],
        [{ tag: "code_block", language: "Python", text: "def f():\n    return  1\n" }],
        [
          { tag: "img", image_key: "img_b" },
          { tag: "media", file_key: "file_v", image_key: "img_cover" },
        ],
        [{ tag: "emotion", emoji_type: "SMILE" }],
      ],
    });
    expect(reading?.text).toBe(
      "Bug\nsee **this**[log](https://logs.example/1)\n\n```python\ndef f():\n    return  1\n```\n\n:SMILE:",
    );
    expect(reading?.attachments).toEqual([
      { kind: "image", resource: { key: "img_a", type: "image" } },
      { kind: "image", resource: { key: "img_b", type: "image" } },
      { kind: "video", resource: { key: "file_v", type: "file" } },
    ]);
    // A post that is only an image still reaches the agent.
    expect(read("post", { content: [[{ tag: "img", image_key: "img_only" }]] })).toEqual({
      text: "",
      attachments: [{ kind: "image", resource: { key: "img_only", type: "image" } }],
    });
    // The locale-wrapped form some clients send.
    expect(read("post", { zh_cn: { title: "T", content: [[{ tag: "text", text: "hi" }]] } })?.text).toBe(
      "T\nhi",
    );
  });
});
