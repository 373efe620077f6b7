import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { currentRequestContext } from "../context/request-context.js";
import type { HistoryMessage } from "../history/history-message.js";
import type { LogFields } from "../logger/logger.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-compaction-", "each");

const seed = (count: number): HistoryMessage[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `old${index}`,
    role: index % 2 ? "assistant" : "user",
    parts: [{ type: "text", text: `old message ${index}` }],
    metadata: { createdAt: new Date(0).toISOString() },
  }));

describe("runtime compaction and context-window recovery", () => {
  it("compacts when history exceeds keepLast: summary by the model, newest kept verbatim, archive written", async () => {
    const scripted = createScriptedModel(["SUMMARY: old stuff", "fresh answer"]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      history: { keepLast: 10 },
    });
    await runtime.history("c").append(seed(20));
    const result = await runtime.send({ contextId: "c", text: "new question" });
    expect(result.text).toBe("fresh answer");
    expect(scripted.calls[0]?.messages.at(-1)?.text).toContain("old message 0");
    const answerCall = scripted.calls[1]?.messages ?? [];
    expect(answerCall.some((m) => m.role === "system" && m.text.includes("SUMMARY: old stuff"))).toBe(true);
    expect(answerCall.some((m) => m.text === "old message 0")).toBe(false);
    expect(answerCall.at(-1)?.text).toBe("new question");
    const stored = await runtime.history("c").read();
    expect(stored[0]?.metadata?.kind).toBe("summary");
    expect(stored.at(-1)?.role).toBe("assistant");
    expect(await readdir(join(runtime.history("c").dir ?? "", "archive"))).toHaveLength(1);
    await runtime.close();
  });

  it("compacts and retries on a context-window error, then succeeds", async () => {
    const overflow = Object.assign(new Error("This model's maximum context length is 8192 tokens"), {
      code: "context_length_exceeded",
    });
    const scripted = createScriptedModel([overflow, "short summary", "answer after retry"]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      history: { keepLast: 50 },
    });
    await runtime.history("c").append(seed(30));
    const result = await runtime.send({ contextId: "c", text: "q" });
    expect(result.text).toBe("answer after retry");
    expect((await runtime.history("c").read())[0]?.metadata?.kind).toBe("summary");
    await runtime.close();
  });

  it("gives up after 3 retries with CONTEXT_WINDOW_EXCEEDED naming the setting", async () => {
    const overflow = () => new Error("prompt is too long: 300000 tokens > 200000 maximum");
    const scripted = createScriptedModel([]);
    scripted.push(
      ...Array.from(
        { length: 20 },
        () => (call: { messages: Array<{ text: string }> }) =>
          call.messages.length === 1 ? "summary" : overflow(),
      ),
    );
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    await runtime.history("c").append(seed(16));
    await expect(runtime.send({ contextId: "c", text: "q" })).rejects.toMatchObject({
      code: "CONTEXT_WINDOW_EXCEEDED",
      message: expect.stringContaining("history.keepLast"),
    });
    await runtime.close();
  });

  it("loads earlier messages with chat_load_history by keyword and count", async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "chat_load_history", input: { keyword: "message 3" } }] },
      (call) => call.messages.at(-1)?.text ?? "",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      history: { keepLast: 100 },
    });
    await runtime.history("c").append(seed(6));
    const result = await runtime.send({ contextId: "c", text: "what did I say?" });
    // Everything is already in view, so nothing "earlier" is loaded.
    expect(result.text).toContain('"found":0');
    await runtime.close();

    const scripted2 = createScriptedModel([
      "sum",
      { toolCalls: [{ toolName: "chat_load_history", input: { keyword: "message 3" } }] },
      (call) => call.messages.at(-1)?.text ?? "",
    ]);
    const small = createAgentRuntime({
      rootDir: temp.path,
      model: scripted2.model,
      history: { keepLast: 4 },
    });
    await small.history("d").append(seed(10));
    const loaded = await small.send({ contextId: "d", text: "what did I say?" });
    expect(loaded.text).toContain("old message 3");
    await small.close();

    // By count: the newest `count` messages out of view, archived ones included.
    const scripted3 = createScriptedModel([
      "sum",
      { toolCalls: [{ toolName: "chat_load_history", input: { count: 2 } }] },
      (call) => call.messages.at(-1)?.text ?? "",
    ]);
    const byCount = createAgentRuntime({
      rootDir: temp.path,
      model: scripted3.model,
      history: { keepLast: 4 },
    });
    await byCount.history("e").append(seed(10));
    const counted = await byCount.send({ contextId: "e", text: "more?" });
    // Compaction kept "old message 9" and the new question in view and archived old 0-8.
    expect(counted.text).toContain("old message 7");
    expect(counted.text).toContain("old message 8");
    expect(counted.text).not.toContain("old message 6");
    expect(counted.text).toContain('"found":9');
    await byCount.close();
  });

  it("exposes contextId and requestId to tools and log lines through AsyncLocalStorage", async () => {
    const lines: LogFields[] = [];
    const seen: Array<string | undefined> = [];
    const scripted = createScriptedModel([{ toolCalls: [{ toolName: "whoami", input: {} }] }, "ok"]);
    const record = (fields: LogFields) => lines.push(fields);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      logger: { debug: record, info: record, warn: record, error: record },
      tools: {
        whoami: tool({
          inputSchema: z.object({}),
          execute: async () => {
            seen.push(currentRequestContext()?.contextId, currentRequestContext()?.requestId);
            return "me";
          },
        }),
      },
    });
    const result = await runtime.send({ contextId: "ctx-x", text: "who" });
    expect(seen).toEqual(["ctx-x", result.requestId]);
    const runLines = lines.filter((line) => line.requestId === result.requestId);
    expect(runLines.length).toBeGreaterThan(0);
    expect(runLines.every((line) => line.contextId === "ctx-x")).toBe(true);
    await runtime.close();
  });
});
