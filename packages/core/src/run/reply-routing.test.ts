import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import type { OutgoingMessage } from "../chat/channel-sender.js";
import { createScriptedModel } from "../test/scripted-model.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "downcity-routing-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("routing of a context's internal runs", () => {
  it("answers a follow-up (a finished job) in the chat and thread the conversation came from", async () => {
    const runtime = createAgentRuntime({
      rootDir: root,
      model: createScriptedModel(["started it", "your build finished"]).model,
    });
    const sent: OutgoingMessage[] = [];
    runtime.registerSender("tg", (message) => void sent.push(message));
    const contextId = "tg:-100:42";
    await runtime.send({ contextId, text: "build it", channel: "tg", chatId: "-100", threadId: "42" });
    await runtime.send({ contextId, text: "job sh_1 exited with 0", origin: "internal" });
    expect(sent.map((message) => [message.chatId, message.threadId, message.text])).toEqual([
      ["-100", "42", "started it"],
      ["-100", "42", "your build finished"],
    ]);
    await runtime.close();
  });
});
