import type { LanguageModelV3, LanguageModelV3StreamPart, LanguageModelV3Usage } from "@ai-sdk/provider";
import { type FinishReason, gateway, type LanguageModel } from "ai";

type Finish = Extract<LanguageModelV3StreamPart, { type: "finish" }>;

/**
 * The model the loop calls: an object of the current specification as it is; one of the previous
 * specification (v2), whose stream differs only in its finish part, as it is too (`modelFinish`
 * reads both); a model id through the AI SDK's default provider (the gateway unless the host set
 * `globalThis.AI_SDK_DEFAULT_PROVIDER`), as the AI SDK resolves it.
 */
export function resolveModel(model: LanguageModel): LanguageModelV3 {
  if (typeof model === "string") {
    const provider =
      (globalThis as { AI_SDK_DEFAULT_PROVIDER?: typeof gateway }).AI_SDK_DEFAULT_PROVIDER ?? gateway;
    return provider.languageModel(model) as LanguageModelV3;
  }
  const version: string = model.specificationVersion;
  if (version !== "v3" && version !== "v2") {
    throw new Error(
      `model ${model.provider}/${model.modelId} implements language model specification ${version}; this runtime calls v2 and v3 models (update the provider package)`,
    );
  }
  return model as LanguageModelV3;
}

/** A finish part's reason and usage, read from the v3 shape or the v2 one (a plain reason, flat token counts). */
export function modelFinish(part: Finish | undefined): {
  finishReason: FinishReason;
  rawFinishReason: string | undefined;
  usage: LanguageModelV3Usage;
} {
  if (!part) return { finishReason: "other", rawFinishReason: undefined, usage: noUsage };
  const reason = part.finishReason as Finish["finishReason"] | string;
  const usage = part.usage as LanguageModelV3Usage | V2Usage;
  return {
    finishReason:
      typeof reason === "string"
        ? reason === "unknown"
          ? "other"
          : (reason as FinishReason)
        : reason.unified,
    rawFinishReason: typeof reason === "string" ? undefined : reason.raw,
    usage: isV2Usage(usage) ? fromV2Usage(usage) : usage,
  };
}

interface V2Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

const noUsage: LanguageModelV3Usage = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

function isV2Usage(usage: LanguageModelV3Usage | V2Usage): usage is V2Usage {
  return typeof usage.inputTokens !== "object" && typeof usage.outputTokens !== "object";
}

function fromV2Usage(usage: V2Usage): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: usage.inputTokens,
      noCache: undefined,
      cacheRead: usage.cachedInputTokens,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage.outputTokens, text: undefined, reasoning: usage.reasoningTokens },
    ...(usage.totalTokens == null ? {} : { raw: { totalTokens: usage.totalTokens } }),
  };
}
