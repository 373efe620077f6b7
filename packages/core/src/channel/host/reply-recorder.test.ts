import { describe, expect, it } from "vitest";
import type { OutboxInput } from "../../store/outbox-store.js";
import type { ChannelDelivery } from "../delivery/channel-delivery.js";
import { createReplyRecorder } from "./reply-recorder.js";

function recorder(renders: boolean, sendsFiles = true) {
  const recorded: OutboxInput[] = [];
  const delivery = {
    record: async (entries: OutboxInput[]) => {
      recorded.push(...entries);
    },
    // Alice's message in her group's topic started the run.
    trigger: async (id: string) =>
      id === "tg:e1"
        ? {
            id,
            channel: "tg",
            message: {
              text: "hi",
              chatId: "alice-group",
              chatType: "group",
              threadId: "7",
              platformMessageId: "m1",
            },
          }
        : undefined,
  } as unknown as ChannelDelivery;
  const replies = createReplyRecorder({
    delivery,
    maxTextLength: () => 4096,
    renders: () => renders,
    sendsFiles: () => sendsFiles,
  });
  return { replies, recorded };
}

const target = { chatId: "1" };
const longFence = `Here:\n\n\`\`\`ts\n${"const x = 1;\n".repeat(500)}\`\`\`\n`;

describe("createReplyRecorder", () => {
  it("leaves a long code fence whole for an adapter that renders and chunks after rendering", async () => {
    const { replies, recorded } = recorder(true);
    await replies.record("tg", "tg:1", target, longFence, "k");
    expect(recorded).toHaveLength(1);
    expect(recorded[0]?.text.trimEnd()).toBe(longFence.trimEnd());
  });

  it("splits at the adapter's length for one that does not render", async () => {
    const { replies, recorded } = recorder(false);
    await replies.record("hook", "hook:1", target, longFence, "k");
    expect(recorded.length).toBeGreaterThan(1);
    expect(recorded.every((entry) => entry.text.length <= 4096)).toBe(true);
  });

  it("puts files on the last chunk, and refuses them for a channel that cannot send files", async () => {
    const file = {
      name: "a.png",
      mediaType: "image/png",
      size: 3,
      sha256: "ab",
      path: ".downcity/media/sent/ab-a.png",
    };
    const { replies, recorded } = recorder(false);
    await replies.record("hook", "hook:1", target, "", "k", [file]);
    expect(recorded).toEqual([expect.objectContaining({ key: "k", text: "", attachments: [file] })]);
    const refusing = recorder(false, false);
    await expect(refusing.replies.record("x", "x:1", target, "hi", "k", [file])).rejects.toThrow(
      'channel "x" cannot send files',
    );
    expect(refusing.recorded).toEqual([]);
  });

  it("replies to the trigger in its own chat and thread; a chat_send to another chat carries no reply target from it", async () => {
    const { replies, recorded } = recorder(false);
    const send = replies.sender("tg");
    const base = { contextId: "tg:alice-group:7", requestId: "r1", channel: "tg", triggerMessageId: "tg:e1" };
    await send({ ...base, chatId: "alice-group", threadId: "7", text: "for Alice", sequence: 0 });
    await send({ ...base, chatId: "bob-dm", text: "for Bob", sequence: 1 });
    expect(recorded.map((entry) => [entry.text, entry.target])).toEqual([
      ["for Alice", { chatId: "alice-group", chatType: "group", threadId: "7", replyToMessageId: "m1" }],
      ["for Bob", { chatId: "bob-dm" }],
    ]);
  });

  it("puts buttons on the last chunk only", async () => {
    const { replies, recorded } = recorder(false);
    const actions = [{ id: "approval:K7Q2:once", label: "Allow once" }];
    await replies.record("hook", "hook:1", target, "a".repeat(5000), "k", undefined, actions);
    expect(recorded.map((entry) => entry.actions)).toEqual([undefined, actions]);
  });
});
