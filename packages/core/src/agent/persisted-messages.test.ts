import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import type { ChannelSender, OutgoingMessage } from "../chat/channel-sender.js";
import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { ContextHistory, HistoryStore } from "../store/history-store.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-replay-", "each");

/** A file history store that names each history call it is asked (meta aside). */
function recordingStore(rootDir: string): { store: HistoryStore; calls: string[] } {
  const files = createFileHistoryStore({ rootDir });
  const calls: string[] = [];
  const store: HistoryStore = {
    context(contextId) {
      const history = files.context(contextId) as unknown as Record<string, unknown>;
      const recorded = Object.entries(history).map(([name, value]) => [
        name,
        typeof value === "function" && name !== "meta"
          ? (...args: unknown[]) => {
              calls.push(name);
              return (value as (...args: unknown[]) => unknown)(...args);
            }
          : value,
      ]);
      return Object.fromEntries(recorded) as unknown as ContextHistory;
    },
    close: () => files.close(),
  };
  return { store, calls };
}

describe("a channel's message", () => {
  it("is checked for a replay and appended in one store call, and a replay of it in one call that writes nothing", async () => {
    const { store, calls } = recordingStore(temp.path);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: createScriptedModel(["first", "second"]).model,
      sharedHistory: store,
    });
    const message = { contextId: "tg:3", text: "hi", messageId: "tg:9", channel: "tg", chatId: "3" };
    await runtime.send(message);
    // The trigger's call, the prompt's tail read, the answer's append.
    expect(calls).toEqual(["appendUnlessStored", "read", "append"]);
    calls.length = 0;
    await runtime.send({ ...message, messageId: "tg:10" });
    expect(calls).toEqual(["appendUnlessStored", "read", "append"]);
    const history = await runtime.history("tg:3").read();
    expect(history.map((entry) => [entry.role, entry.metadata?.messageId])).toEqual([
      ["user", "tg:9"],
      ["assistant", undefined],
      ["user", "tg:10"],
      ["assistant", undefined],
    ]);
    await runtime.close();
    // A replay of an answered event on a restarted worker: found by that call, nothing written, not run again.
    calls.length = 0;
    const again = createScriptedModel(["not asked"]);
    const restarted = createAgentRuntime({ rootDir: temp.path, model: again.model, sharedHistory: store });
    await restarted.send(message);
    expect(calls).toEqual(["appendUnlessStored", "read"]);
    expect(again.calls).toHaveLength(0);
    expect(await restarted.history("tg:3").read()).toHaveLength(4);
    await restarted.close();
  });
});

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
