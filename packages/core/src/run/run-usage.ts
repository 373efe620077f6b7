import type { LanguageModelUsage } from "ai";

/** Token counts of one model call or a sum of them. */
export interface RunUsage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens read from the provider's prompt cache (included in `inputTokens`). */
  cachedInputTokens: number;
  totalTokens: number;
}

/** Usage of nothing: the start of a sum. */
export function emptyUsage(): RunUsage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
}

/** Adds `more` to `sum` in place and returns it. */
export function addUsage(sum: RunUsage, more: RunUsage): RunUsage {
  sum.inputTokens += more.inputTokens;
  sum.outputTokens += more.outputTokens;
  sum.cachedInputTokens += more.cachedInputTokens;
  sum.totalTokens += more.totalTokens;
  return sum;
}

/** Reads the AI SDK's usage (any field may be missing) into plain counts. */
export function usageFromModel(usage: Partial<LanguageModelUsage> | undefined): RunUsage {
  const input = usage?.inputTokens ?? 0;
  const output = usage?.outputTokens ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: usage?.inputTokenDetails?.cacheReadTokens ?? usage?.cachedInputTokens ?? 0,
    totalTokens: usage?.totalTokens ?? input + output,
  };
}
