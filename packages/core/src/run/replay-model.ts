import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import type { ModelCallRecord } from "../store/run-journal.js";

/**
 * A model that answers each call with the next recorded response of a run (no network): the
 * recorded content parts are streamed back as the provider sent them. A call past the recording
 * fails, naming how many calls were recorded.
 */
export function createReplayModel(calls: readonly ModelCallRecord[], modelId = "replay"): LanguageModelV3 {
  let next = 0;
  const take = () => {
    const call = calls[next++];
    if (!call?.response)
      throw new Error(
        `replay: the run recorded ${calls.length} model call(s); call ${next} has no recorded response`,
      );
    return call.response;
  };
  return {
    specificationVersion: "v3",
    provider: "replay",
    modelId,
    supportedUrls: {},
    async doGenerate() {
      throw new Error("replay: only streamed runs are recorded");
    },
    async doStream() {
      const response = take();
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      response.content.forEach((part, index) => {
        const recorded = part as { type: string; text?: string };
        const id = String(index);
        if (recorded.type === "text" || recorded.type === "reasoning") {
          const kind = recorded.type;
          parts.push(
            { type: `${kind}-start`, id } as LanguageModelV3StreamPart,
            { type: `${kind}-delta`, id, delta: recorded.text ?? "" } as LanguageModelV3StreamPart,
            { type: `${kind}-end`, id } as LanguageModelV3StreamPart,
          );
        } else if (recorded.type === "tool-call") parts.push(part as LanguageModelV3StreamPart);
      });
      const { usage } = response;
      parts.push({
        type: "finish",
        finishReason: { unified: (response.finishReason ?? "stop") as "stop", raw: response.finishReason },
        usage: {
          inputTokens: {
            total: usage.inputTokens,
            noCache: usage.inputTokens - usage.cachedInputTokens,
            cacheRead: usage.cachedInputTokens,
            cacheWrite: undefined,
          },
          outputTokens: { total: usage.outputTokens, text: undefined, reasoning: undefined },
        },
      });
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}
