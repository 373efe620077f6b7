import { silentLogger } from "@downcity/core";
import { useRecordingTestBed } from "@downcity/core/test";
import { describe, expect, it } from "vitest";
import { createFeishuAdapter, type FeishuAdapter } from "./feishu-adapter.js";
import { cardMarkdown } from "./test/fake-im-messages.js";
import { fakeAppId, fakeAppSecret, startFakeOpenPlatform } from "./test/fake-open-platform.js";

const longReply = [
  "# Build report",
  "The build **failed** on [CI](https://ci.example/42).",
  "| step | result |\n|---|---|\n| lint | ok |\n| test | failed |",
  `\`\`\`ts\n${Array.from({ length: 400 }, (_, line) => `const value${line} = ${line}; // padding the block`).join("\n")}\n\`\`\``,
].join("\n\n");

describe("feishu cards, typing, edits and buttons", () => {
  const bed = useRecordingTestBed({
    createFake: () => startFakeOpenPlatform(),
    secrets: [fakeAppSecret, /t-[0-9a-f]{8}-/],
  });
  const adapter = () =>
    createFeishuAdapter({ appId: fakeAppId, appSecret: fakeAppSecret, domain: bed.fake.domain });
  const dm = { chatId: "oc_dm", chatType: "direct" as const };

  it("sends a long Markdown reply as valid cards only, the code fence closed and reopened across them", async () => {
    await adapter().send(dm, { text: longReply }, { idempotencyKey: "long-1" });
    const messages = bed.fake.messages();
    expect(messages.length).toBeGreaterThan(1);
    expect(new Set(messages.map((message) => message.msgType))).toEqual(new Set(["interactive"]));
    const markdown = messages.map((message) => cardMarkdown(message.content) ?? "");
    expect(markdown[0]).toMatch(
      /^# Build report\n\nThe build \*\*failed\*\* on \[CI\]\(https:\/\/ci\.example\/42\)\./,
    );
    expect(markdown[0]).toContain("| test | failed |");
    for (const text of markdown) {
      expect(text.length).toBeLessThanOrEqual(8000);
      expect((text.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    expect(markdown.at(-1)).toMatch(/^```ts\n/);
    // The uuids differ per card and are stable: sending again is deduplicated by the platform.
    await adapter().send(dm, { text: longReply }, { idempotencyKey: "long-1" });
    expect(bed.fake.messages()).toHaveLength(messages.length);
  });

  it("falls back to plain text from a refused card on, so one reply never mixes types after it", async () => {
    bed.fake.refuseNextCards(1);
    await adapter().send(
      dm,
      { text: '**bold** and <at user_id="all">x</at>' },
      { idempotencyKey: "fallback-1" },
    );
    const [message] = bed.fake.messages();
    expect(message?.msgType).toBe("text");
    // A long reply whose first card is refused goes out as text from the first chunk to the last.
    bed.fake.refuseNextCards(1);
    await adapter().send(dm, { text: longReply }, { idempotencyKey: "fallback-2" });
    const rest = bed.fake.messages().slice(1);
    expect(rest.length).toBeGreaterThan(1);
    expect(rest.every((sent) => sent.msgType === "text")).toBe(true);
    expect(message?.content.text).toBe('bold and <\u200bat user_id="all">x<\u200b/at>');
  });

  it("shows a Typing reaction on the user's message while a run works, and removes it at the end", async () => {
    const lark = await bed.start(adapter());
    const { eventId } = await bed.fake.deliver({
      chatType: "direct",
      chatId: "oc_dm",
      userId: "ou_ada",
      text: "hi",
    });
    const target = { ...dm, replyToMessageId: `om_${eventId}` };
    expect(lark.typing?.refreshMs).toBe(0);
    await lark.typing?.start(target);
    await lark.typing?.start(target);
    expect(bed.fake.reactions()).toEqual([
      expect.objectContaining({ messageId: `om_${eventId}`, emojiType: "Typing" }),
    ]);
    await lark.typing?.stop?.(target);
    expect(bed.fake.reactions()[0]?.removedAt).toBeGreaterThan(0);
    // A run with no user message to react to (a follow-up) shows nothing, and stopping it is harmless.
    await lark.typing?.start(dm);
    await lark.typing?.stop?.(dm);
    expect(bed.fake.reactions()).toHaveLength(1);
  });

  it("edits a card in place (buttons removed by an empty list), idempotently, and deletes it once or twice", async () => {
    const lark = adapter();
    const actions = [
      { id: "approve:K7Q2:once", label: "Allow once" },
      { id: "approve:K7Q2:deny", label: "Deny" },
    ];
    const { messageId } = await lark.send(
      dm,
      { text: "Run `touch marker`?", actions },
      { idempotencyKey: "ask-1" },
    );
    const buttons = JSON.stringify(bed.fake.messages()[0]?.content);
    expect(buttons).toContain(
      '"behaviors":[{"type":"callback","value":{"downcity_action":"approve:K7Q2:once"}}]',
    );
    expect(buttons).toContain('"content":"Deny"');
    await lark.editing?.edit(dm, messageId ?? "", { text: "Allowed once by Ada.", actions: [] });
    await lark.editing?.edit(dm, messageId ?? "", { text: "Allowed once by Ada.", actions: [] });
    const [edited] = bed.fake.messages();
    expect(edited?.edits).toHaveLength(2);
    expect(cardMarkdown(edited?.content ?? {})).toBe("Allowed once by Ada.");
    expect(JSON.stringify(edited?.content)).not.toContain("behaviors");
    await lark.editing?.delete?.(dm, messageId ?? "");
    await lark.editing?.delete?.(dm, messageId ?? "");
    expect(bed.fake.messages()[0]?.deleted).toBe(true);
  });

  it("turns a button press into an event with the action, and answers it with the callback's toast", async () => {
    let lark: FeishuAdapter | undefined;
    const pressed: unknown[] = [];
    lark = adapter();
    const abort = new AbortController();
    await lark.start({
      channel: "lark",
      logger: silentLogger,
      signal: abort.signal,
      stateDir: bed.recording.context.stateDir,
      setState: () => {},
      inbox: {
        async accept(event) {
          pressed.push(event);
          // The host answers a press while it accepts it ("only approvers can answer").
          await lark?.answerAction?.(
            { ...event, mentionedBot: true, fromBot: false },
            "Only approvers can answer.",
          );
          return "accepted";
        },
      },
    });
    try {
      await bed.fake.deliver({
        chatType: "group",
        chatId: "oc_team",
        userId: "ou_ada",
        text: "go",
        mentionBot: true,
      });
      const { messageId } = await lark.send(
        { chatId: "oc_team", chatType: "group" },
        { text: "Allow?", actions: [{ id: "approve:K7Q2:once", label: "Allow once" }] },
        { idempotencyKey: "ask-2" },
      );
      const press = await bed.fake.pressButton({
        messageId: messageId ?? "",
        chatId: "oc_team",
        userId: "ou_bob",
        value: { downcity_action: "approve:K7Q2:once" },
      });
      expect(press).toEqual({
        acked: true,
        answer: { toast: { type: "info", content: "Only approvers can answer." } },
      });
      expect(pressed.at(-1)).toMatchObject({
        chatId: "oc_team",
        chatType: "group",
        userId: "ou_bob",
        text: "",
        messageId,
        mentionedBot: true,
        action: { id: "approve:K7Q2:once" },
      });
      // A press of a button this adapter did not make is acknowledged and ignored.
      const before = pressed.length;
      await bed.fake.pressButton({
        messageId: messageId ?? "",
        chatId: "oc_team",
        userId: "ou_bob",
        value: { other: 1 },
      });
      expect(pressed).toHaveLength(before);
    } finally {
      abort.abort();
      await lark.stop();
    }
  });
});
