import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import type { ChannelSender, OutgoingMessage } from "../chat/channel-sender.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-replay-", "each");

describe("a message replayed after a crash", () => {
  it("is not written to history twice, and its replies carry the same trigger and positions", async () => {
    const first = createAgentRuntime({
      rootDir: temp.path,
      model: createScriptedModel([new Error("crash mid-run")]).model,
    });
    await expect(
      first.send({ contextId: "tg:1", text: "hello", messageId: "tg:42", channel: "tg", chatId: "1" }),
    ).rejects.toMatchObject({ code: "MODEL_ERROR" });
    await first.close();

    const outgoing: OutgoingMessage[] = [];
    const sender: ChannelSender = (message) => void outgoing.push(message);
    const second = createAgentRuntime({
      rootDir: temp.path,
      model: createScriptedModel([
        { toolCalls: [{ toolName: "chat_send", input: { text: "working on it" } }] },
        { toolCalls: [{ toolName: "chat_send", input: { text: "done" } }] },
        "",
      ]).model,
    });
    second.registerSender("tg", sender);
    await second.send({ contextId: "tg:1", text: "hello", messageId: "tg:42", channel: "tg", chatId: "1" });
    const history = await second.history("tg:1").read();
    expect(history.filter((message) => message.role === "user")).toHaveLength(1);
    expect(outgoing.map((message) => [message.triggerMessageId, message.sequence, message.text])).toEqual([
      ["tg:42", 0, "working on it"],
      ["tg:42", 1, "done"],
    ]);
    await second.close();
  });

  it("is not run again when its run had finished (answer stored) before the crash kept it from being marked done", async () => {
    const first = createAgentRuntime({
      rootDir: temp.path,
      model: createScriptedModel(["the first answer"]).model,
    });
    const answered = await first.send({
      contextId: "tg:2",
      text: "hi",
      messageId: "tg:7",
      channel: "tg",
      chatId: "2",
    });
    await first.close();

    const again = createScriptedModel(["a second answer"]);
    const outgoing: OutgoingMessage[] = [];
    const second = createAgentRuntime({ rootDir: temp.path, model: again.model });
    second.registerSender("tg", (message) => void outgoing.push(message));
    const replayed = await second.send({
      contextId: "tg:2",
      text: "hi",
      messageId: "tg:7",
      channel: "tg",
      chatId: "2",
    });
    expect(again.calls).toHaveLength(0);
    expect(outgoing).toEqual([]);
    expect(replayed.text).toBe("the first answer");
    expect(replayed.message.id).toBe(answered.message.id);
    const history = await second.history("tg:2").read();
    expect(history.map((message) => message.role)).toEqual(["user", "assistant"]);

    // A new message of the chat is answered as usual.
    const next = await second.send({
      contextId: "tg:2",
      text: "more",
      messageId: "tg:8",
      channel: "tg",
      chatId: "2",
    });
    expect(next.text).toBe("a second answer");
    await second.close();
  });
});
