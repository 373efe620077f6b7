import { useTempDir } from "@downcity/testkit/vitest";
import { expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { channelRenderingOf } from "../channel/host/channel-rendering-of.js";
import { createScriptedModel } from "../test/scripted-model.js";

const temp = useTempDir("dc-channel-rendering-");

it("the runtime note tells the model how this turn's chat renders, its length limit and whether files go out", async () => {
  const scripted = createScriptedModel([], { fallback: "ok" });
  const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
  runtime.registerSender(
    "tg",
    () => {},
    channelRenderingOf({
      maxTextLength: 4096,
      threads: true,
      markdown: "telegram-html",
      idempotentSends: false,
      format: "telegram-html",
      attachmentsOut: true,
    }),
  );
  runtime.registerSender(
    "sms",
    () => {},
    channelRenderingOf({ maxTextLength: 160, threads: false, markdown: "none", idempotentSends: false }),
  );
  try {
    await runtime.send({ contextId: "tg:1", text: "hi", channel: "tg", chatId: "1" });
    await runtime.send({ contextId: "sms:2", text: "hi", channel: "sms", chatId: "2" });
    await runtime.send({ contextId: "cli", text: "hi" });
  } finally {
    await runtime.close();
  }
  const notes = scripted.calls.map((call) => {
    const messages = call.messages;
    // The note sits just before the newest message; everything before the history is the stable prefix.
    expect(messages.at(-1)?.role).toBe("user");
    const note = messages.at(-2);
    expect(note?.text).toMatch(/^Runtime note for this turn:/);
    const prefix = messages.slice(0, -2).map((message) => message.text);
    expect(prefix.join("\n")).not.toMatch(/formatting:|message length:/);
    return note?.text ?? "";
  });
  expect(notes[0]).toContain("- formatting: this chat renders Markdown");
  expect(notes[0]).toContain("at most 4096 characters");
  expect(notes[0]).toContain("chat_send can send project files here");
  expect(notes[1]).toContain("plain text only");
  expect(notes[1]).toContain("at most 160 characters");
  expect(notes[1]).toContain("cannot receive files");
  // A turn no channel registered (the CLI) gets no rendering lines.
  expect(notes[2]).not.toContain("formatting:");
});
