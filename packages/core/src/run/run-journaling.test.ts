import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { openFileRunJournal } from "../store/file/file-run-journal.js";
import type { JournalRecord } from "../store/run-journal.js";
import { createScriptedModel } from "../test/scripted-model.js";

const temp = useTempDir("downcity-journaling-", "each");

const ofType = <T extends JournalRecord["type"]>(records: JournalRecord[], type: T) =>
  records.filter((record): record is Extract<JournalRecord, { type: T }> => record.type === type);

describe("run journaling", () => {
  it("journals a 3-step run: each model call, both tool calls with input and output, each step, the reply, the end", async () => {
    const journal = openFileRunJournal({ rootDir: temp.path });
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "add", input: { a: 2, b: 3 }, toolCallId: "call-1" }] },
      { text: "checking", toolCalls: [{ toolName: "add", input: { a: 5, b: 1 }, toolCallId: "call-2" }] },
      "the sum is 6",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      journal,
      secrets: ["sk-secret-value"],
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => ({ sum: a + b, note: "key sk-secret-value" }),
        }),
      },
    });
    const result = await runtime.send({ contextId: "console:main", text: "add things" });
    await runtime.close();
    const records = (await journal.read(result.requestId)) ?? [];
    expect(records.map((record) => record.type)[0]).toBe("run");
    expect(ofType(records, "model-call")).toHaveLength(3);
    expect(ofType(records, "model-call")[0]?.response?.content).toContainEqual(
      expect.objectContaining({ type: "tool-call", toolCallId: "call-1" }),
    );
    const ends = ofType(records, "tool-end");
    expect(ends.map((end) => [end.toolCallId, end.output])).toEqual([
      ["call-1", { sum: 5, note: "key [redacted]" }],
      ["call-2", { sum: 6, note: "key [redacted]" }],
    ]);
    expect(ofType(records, "tool-start").map((start) => start.input)).toEqual([
      { a: 2, b: 3 },
      { a: 5, b: 1 },
    ]);
    const steps = ofType(records, "step");
    expect(steps.map((step) => step.step)).toEqual([0, 1, 2]);
    expect(steps.every((step) => step.usage.totalTokens > 0)).toBe(true);
    // A tool's start is durable before the step that called it ends.
    const order = records.map((record) => `${record.type}:${"step" in record ? record.step : ""}`);
    expect(order.indexOf("tool-start:0")).toBeLessThan(order.indexOf("step:0"));
    expect(ofType(records, "reply")).toEqual([
      expect.objectContaining({ key: `${result.requestId}:2:0`, via: "final-text", text: "the sum is 6" }),
    ]);
    expect(ofType(records, "end")).toEqual([
      expect.objectContaining({ outcome: "completed", steps: 3, usage: result.usage }),
    ]);
    expect(ofType(records, "content")).toHaveLength(1);
    const [summary] = await journal.list();
    expect(summary).toMatchObject({
      requestId: result.requestId,
      status: "completed",
      steps: 3,
      toolCalls: 2,
    });
  });

  it("ends a failed run's journal with its error", async () => {
    const journal = openFileRunJournal({ rootDir: temp.path });
    const scripted = createScriptedModel([new Error("provider down")]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, journal });
    await expect(runtime.send({ contextId: "console:main", text: "hi" })).rejects.toThrow(/provider down/);
    await runtime.close();
    const [summary] = await journal.list();
    expect(summary?.status).toBe("failed");
    const records = (await journal.read(summary?.requestId ?? "")) ?? [];
    expect(ofType(records, "end")[0]?.error?.message).toMatch(/provider down/);
    expect(ofType(records, "model-call")[0]?.error).toMatch(/provider down/);
  });

  it("records a model call a cancel cut off mid-stream, with the text that had arrived", async () => {
    const journal = openFileRunJournal({ rootDir: temp.path });
    // The provider sends a few parts, then nothing more: the stream stays open until the run stops.
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "response-metadata", id: "resp-7" });
            controller.enqueue({ type: "text-start", id: "t0" });
            controller.enqueue({ type: "text-delta", id: "t0", delta: "Half of an" });
          },
        }),
      }),
    });
    const runtime = createAgentRuntime({ rootDir: temp.path, model, journal });
    const deltas: string[] = [];
    runtime.on((event) => event.type === "text-delta" && deltas.push(event.delta));
    const running = runtime.send({ contextId: "cli:main", text: "hi" });
    await until(() => deltas.length > 0, "the first text delta");
    expect(await runtime.cancel({ contextId: "cli:main" })).toHaveLength(1);
    const result = await running;
    await runtime.close();
    const records = (await journal.read(result.requestId)) ?? [];
    expect(ofType(records, "model-call")).toEqual([
      expect.objectContaining({
        error: "aborted",
        response: expect.objectContaining({ id: "resp-7", content: [{ type: "text", text: "Half of an" }] }),
      }),
    ]);
    // Recorded before the run's end record.
    expect(records.map((record) => record.type).slice(-2)).toEqual(["model-call", "end"]);
    expect(ofType(records, "end")[0]?.outcome).toBe("aborted");
  });
});
