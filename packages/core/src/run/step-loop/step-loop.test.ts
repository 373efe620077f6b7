import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import {
  dynamicTool,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
} from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runStepLoop, type StepLoopOptions } from "./step-loop.js";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** A model that answers each call with the next script, and keeps the calls. */
function scriptedModel(scripts: LanguageModelV3StreamPart[][]) {
  let call = 0;
  return new MockLanguageModelV3({
    provider: "mock-provider",
    modelId: "mock-model",
    doStream: async () => ({ stream: convertArrayToReadableStream(scripts[call++] ?? []) }),
  });
}

const meta = (id: string): LanguageModelV3StreamPart => ({
  type: "response-metadata",
  id,
  modelId: "mock-model-1",
  timestamp: new Date(0),
});

/** Step 1: reasoning, text and five tool calls (valid, throwing, unknown tool, bad input, streaming); step 2: the answer. */
const scripts: LanguageModelV3StreamPart[][] = [
  [
    { type: "stream-start", warnings: [] },
    meta("r1"),
    { type: "reasoning-start", id: "z" },
    { type: "reasoning-delta", id: "z", delta: "think" },
    { type: "reasoning-end", id: "z" },
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Checking" },
    { type: "text-delta", id: "t", delta: " now." },
    { type: "text-end", id: "t" },
    { type: "tool-input-start", id: "c1", toolName: "add" },
    { type: "tool-input-delta", id: "c1", delta: '{"a":1,' },
    { type: "tool-input-delta", id: "c1", delta: '"b":2}' },
    { type: "tool-input-end", id: "c1" },
    { type: "tool-call", toolCallId: "c1", toolName: "add", input: '{"a":1,"b":2}' },
    { type: "tool-call", toolCallId: "c2", toolName: "fail", input: "" },
    { type: "tool-call", toolCallId: "c3", toolName: "nope", input: '{"x":1}' },
    { type: "tool-call", toolCallId: "c4", toolName: "add", input: '{"a":"one"}' },
    { type: "tool-call", toolCallId: "c5", toolName: "count", input: '{"to":3}' },
    { type: "tool-call", toolCallId: "c6", toolName: "shown", input: "{}" },
    { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usage(10, 5) },
  ],
  [
    { type: "stream-start", warnings: [] },
    meta("r2"),
    { type: "text-start", id: "t" },
    { type: "text-delta", id: "t", delta: "Done." },
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(20, 2) },
  ],
];

/** Input deltas the `add` tool heard as they streamed. */
let heard: string[] = [];

function tools(): ToolSet {
  return {
    add: tool({
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => ({ sum: a + b }),
      onInputDelta: ({ inputTextDelta }) => void heard.push(inputTextDelta),
    }),
    fail: tool({
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error("disk full");
      },
    }),
    count: tool({
      inputSchema: z.object({ to: z.number() }),
      async *execute({ to }) {
        for (let n = 1; n <= to; n++) yield `counted ${n}`;
      },
    }),
    shown: dynamicTool({
      inputSchema: jsonSchema({ type: "object" }),
      execute: async () => "plain text",
      toModelOutput: () => ({ type: "content", value: [{ type: "text", text: "as content" }] }),
    }),
  };
}

const messages: ModelMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "add and fail" },
];

/** What two runs must agree on: errors by name and message, everything else as JSON. */
const comparable = (value: unknown) =>
  JSON.parse(
    JSON.stringify(value, (_key, entry) =>
      entry instanceof Error ? { error: entry.name, message: entry.message } : entry,
    ),
  );

/**
 * The parts the run reads, in order, except that tools running in parallel may finish in any order:
 * each call's results are compared in order, apart from the rest. Text part ids are left out (the AI
 * SDK renames a reused id; the run does not read them).
 */
const readParts = (parts: Array<TextStreamPart<ToolSet>>) => {
  const read = parts.filter((part) =>
    [
      "start-step",
      "text-delta",
      "reasoning-delta",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "tool-result",
      "tool-error",
      "finish-step",
    ].includes(part.type),
  );
  const isOutcome = (part: TextStreamPart<ToolSet>) =>
    part.type === "tool-result" || part.type === "tool-error";
  const byCall = new Map<string, unknown[]>();
  for (const part of read.filter(isOutcome)) {
    const id = (part as { toolCallId: string }).toolCallId;
    byCall.set(id, [...(byCall.get(id) ?? []), comparable(part)]);
  }
  const sequence = read
    .filter((part) => !isOutcome(part))
    .map((part) => comparable({ ...part, id: undefined }));
  return { sequence, outcomes: Object.fromEntries([...byCall].sort(([a], [b]) => a.localeCompare(b))) };
};

/** The loop's options for `model`: the test's prompt, no tools, five steps, parts and steps ignored. */
function loopOptions(
  model: StepLoopOptions["model"],
  overrides: Partial<StepLoopOptions> = {},
): StepLoopOptions {
  return {
    model,
    messages,
    tools: {},
    stopWhen: [stepCountIs(5)],
    abortSignal: new AbortController().signal,
    onPart: () => {},
    onStepFinish: async () => {},
    ...overrides,
  };
}

async function viaStreamText() {
  const model = scriptedModel(scripts);
  const parts: Array<TextStreamPart<ToolSet>> = [];
  const result = streamText({
    model,
    messages,
    allowSystemInMessages: true,
    tools: tools(),
    stopWhen: stepCountIs(5),
    maxRetries: 0,
  });
  for await (const part of result.fullStream) parts.push(part);
  return { steps: await result.steps, parts, calls: model.doStreamCalls };
}

async function viaStepLoop() {
  const model = scriptedModel(scripts);
  const parts: Array<TextStreamPart<ToolSet>> = [];
  const finished: number[] = [];
  const steps = await runStepLoop(
    loopOptions(model, {
      tools: tools(),
      onPart: (part) => void parts.push(part),
      onStepFinish: async (step) => void finished.push(step.stepNumber),
    }),
  );
  return { steps, parts, calls: model.doStreamCalls, finished };
}

describe("runStepLoop", () => {
  it("produces the steps, prompts and parts streamText produces for the same model", async () => {
    const sdk = await viaStreamText();
    const own = await viaStepLoop();
    expect(own.steps).toHaveLength(2);
    expect(own.finished).toEqual([0, 1]);
    expect(comparable(own.calls.map((call) => [call.prompt, call.tools, call.toolChoice]))).toEqual(
      comparable(sdk.calls.map((call) => [call.prompt, call.tools, call.toolChoice])),
    );
    for (const [index, step] of own.steps.entries()) {
      const expected = sdk.steps[index];
      expect(comparable(step.content)).toEqual(comparable(expected?.content));
      expect(comparable(step.response.messages)).toEqual(comparable(expected?.response.messages));
      expect(step.usage).toEqual(expected?.usage);
      expect([step.finishReason, step.rawFinishReason, step.text]).toEqual([
        expected?.finishReason,
        expected?.rawFinishReason,
        expected?.text,
      ]);
      expect(comparable([step.toolCalls, step.toolResults, step.reasoningText])).toEqual(
        comparable([expected?.toolCalls, expected?.toolResults, expected?.reasoningText]),
      );
      expect([step.response.id, step.response.modelId]).toEqual([
        expected?.response.id,
        expected?.response.modelId,
      ]);
    }
    expect(readParts(own.parts)).toEqual(readParts(sdk.parts));
  });

  it("streams a tool call's input to the tool and the run as it arrives", async () => {
    heard = [];
    const { parts } = await viaStepLoop();
    expect(heard).toEqual(['{"a":1,', '"b":2}']);
    expect(parts.filter((part) => part.type.startsWith("tool-input")).map((part) => part.type)).toEqual([
      "tool-input-start",
      "tool-input-delta",
      "tool-input-delta",
      "tool-input-end",
    ]);
  });

  it("tells the model what each call returned: outputs, thrown errors, refused input and unknown tools", async () => {
    const { steps } = await viaStepLoop();
    const toolMessage = steps[0]?.response.messages.find((message) => message.role === "tool");
    const outputs = Object.fromEntries(
      (toolMessage?.content ?? []).flatMap((part) =>
        part.type === "tool-result" ? [[part.toolCallId, part.output]] : [],
      ),
    );
    expect(outputs.c1).toEqual({ type: "json", value: { sum: 3 } });
    expect(outputs.c2).toEqual({ type: "error-text", value: "disk full" });
    expect(outputs.c3).toMatchObject({ type: "error-text", value: expect.stringContaining("nope") });
    expect(outputs.c4).toMatchObject({ type: "error-text", value: expect.stringContaining("add") });
    expect(outputs.c5).toEqual({ type: "text", value: "counted 3" });
    expect(outputs.c6).toEqual({ type: "content", value: [{ type: "text", text: "as content" }] });
  });

  it("stops when a stop condition holds after a step with tool calls", async () => {
    const model = scriptedModel(scripts);
    const steps = await runStepLoop(loopOptions(model, { tools: tools(), stopWhen: [stepCountIs(1)] }));
    expect(steps).toHaveLength(1);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("emits nothing once aborted, and runs no further step", async () => {
    const controller = new AbortController();
    const parts: string[] = [];
    const model = scriptedModel(scripts);
    const looseTools = tools();
    const add = looseTools.add;
    if (!add) throw new Error("no add tool");
    looseTools.add = { ...add, execute: async () => controller.abort(new Error("cancelled")) } as typeof add;
    const steps = await runStepLoop(
      loopOptions(model, {
        tools: looseTools,
        abortSignal: controller.signal,
        onPart: (part) => void parts.push(part.type),
      }),
    );
    expect(steps).toHaveLength(0);
    expect(model.doStreamCalls).toHaveLength(1);
    expect(parts.filter((type) => type === "tool-result" || type === "finish-step")).toEqual([]);
  });

  it("emits nothing more of a step whose stream failed after its tools started", async () => {
    let finished!: () => void;
    const toolDone = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const model = scriptedModel([
      [
        { type: "tool-call", toolCallId: "c1", toolName: "slow", input: "{}" },
        { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: usage(1, 1) },
        { type: "error", error: new Error("connection reset") },
      ],
    ]);
    const parts: string[] = [];
    const slow = tool({
      inputSchema: z.object({}),
      execute: async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        finished();
        return "late";
      },
    });
    const loop = runStepLoop(
      loopOptions(model, { tools: { slow }, onPart: (part) => void parts.push(part.type) }),
    );
    await expect(loop).rejects.toThrow("connection reset");
    await toolDone;
    await new Promise((resolve) => setImmediate(resolve));
    expect(parts).toEqual(["start-step", "tool-call"]);
  });

  it("fails a stream that ends without a finish or any output", async () => {
    const model = scriptedModel([[{ type: "stream-start", warnings: [] }]]);
    const loop = runStepLoop(loopOptions(model));
    await expect(loop).rejects.toThrow(/No output generated/);
  });

  it("throws a stream's error part, and a model that cannot be called", async () => {
    const failing = scriptedModel([[{ type: "error", error: new Error("overloaded") }]]);
    await expect(runStepLoop(loopOptions(failing))).rejects.toThrow("overloaded");
    const future = { ...failing, specificationVersion: "v9" } as unknown as typeof failing;
    await expect(runStepLoop(loopOptions(future))).rejects.toThrow(/specification v9/);
  });
});
