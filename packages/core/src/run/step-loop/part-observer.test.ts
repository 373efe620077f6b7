import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { type LanguageModelMiddleware, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { type ModelPartObserver, modelPartObserver } from "./part-observer.js";
import { runStepLoop } from "./step-loop.js";

const streamStart: LanguageModelV3StreamPart = { type: "stream-start", warnings: [] };
const parts: LanguageModelV3StreamPart[] = [
  streamStart,
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Hello" },
  { type: "text-end", id: "t" },
  {
    type: "finish",
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
  },
];

/** A model behind a middleware that attaches an observer recording what it is told. */
function observedModel(stream: () => ReadableStream<LanguageModelV3StreamPart>) {
  const seen: Array<string> = [];
  const observer: ModelPartObserver = {
    part: (part) => seen.push(part.type),
    end: (error) => seen.push(`end:${error ?? ""}`),
  };
  const middleware: LanguageModelMiddleware = {
    specificationVersion: "v3",
    wrapStream: async ({ doStream }) => ({ ...(await doStream()), [modelPartObserver]: observer }),
  };
  const model = wrapLanguageModel({
    model: new MockLanguageModelV3({ doStream: async () => ({ stream: stream() }) }),
    middleware,
  });
  return { model, seen };
}

const run = (model: ReturnType<typeof observedModel>["model"], abortSignal = new AbortController().signal) =>
  runStepLoop({
    model,
    messages: [{ role: "user", content: "hi" }],
    tools: {},
    stopWhen: [],
    abortSignal,
    onPart: () => {},
    onStepFinish: async () => {},
  });

describe("model part observer", () => {
  it("is handed every part as the provider sent it, then told once that the stream ended", async () => {
    const { model, seen } = observedModel(() => convertArrayToReadableStream(parts));
    const [step] = await run(model);
    expect(step?.text).toBe("Hello");
    expect(seen).toEqual([...parts.map((part) => part.type), "end:"]);
  });

  it("is told the error when the stream fails", async () => {
    let pulls = 0;
    const { model, seen } = observedModel(
      () =>
        new ReadableStream({
          pull(controller) {
            if (pulls++ === 0) controller.enqueue(streamStart);
            else controller.error(new Error("connection reset"));
          },
        }),
    );
    await expect(run(model)).rejects.toThrow("connection reset");
    expect(seen).toEqual(["stream-start", "end:connection reset"]);
  });

  it("is told the run was stopped when the signal aborts while the stream is read", async () => {
    const controller = new AbortController();
    const { model, seen } = observedModel(
      () =>
        new ReadableStream({
          pull(stream) {
            // The second read finds the run stopped.
            if (seen.length === 1) controller.abort(new Error("cancelled"));
            stream.enqueue(parts[seen.length] ?? streamStart);
          },
        }),
    );
    await run(model, controller.signal);
    expect(seen.at(-1)).toBe("end:aborted");
    expect(seen.filter((entry) => entry.startsWith("end:"))).toHaveLength(1);
  });
});
