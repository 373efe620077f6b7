import type { LanguageModelMiddleware } from "ai";
import { currentRequestContext } from "../context/request-context.js";

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"];
type PromptMessage = CallOptions["prompt"][number];
type ProviderOptions = NonNullable<PromptMessage["providerOptions"]>;

/** Marks the runtime note (this turn's facts after the history); providers ignore the `downcity` key. */
export const runtimeNoteOptions: ProviderOptions = { downcity: { runtimeNote: true } };

const ephemeral: ProviderOptions = { anthropic: { cacheControl: { type: "ephemeral" } } };

const isRuntimeNote = (message: PromptMessage) => message.providerOptions?.downcity?.runtimeNote === true;

function withOptions<T extends { providerOptions?: ProviderOptions }>(item: T, extra: ProviderOptions): T {
  const merged: ProviderOptions = { ...item.providerOptions };
  for (const [key, value] of Object.entries(extra)) merged[key] = { ...merged[key], ...value };
  return { ...item, providerOptions: merged };
}

/**
 * Anthropic caches a prefix up to each `cache_control` breakpoint (at most four): the tool
 * definitions, the leading system messages, the history up to this turn's runtime note (the next
 * turn starts with exactly that), and, on later steps of a run, everything up to the newest tool result.
 */
function anthropicBreakpoints(params: CallOptions): CallOptions {
  const prompt = [...params.prompt];
  const marks = new Set<number>();
  let systemEnd = 0;
  while (prompt[systemEnd]?.role === "system" && !isRuntimeNote(prompt[systemEnd] as PromptMessage))
    systemEnd++;
  if (systemEnd > 0) marks.add(systemEnd - 1);
  const note = prompt.findIndex(isRuntimeNote);
  if (note > systemEnd) marks.add(note - 1);
  const last = prompt.length - 1;
  if (last > note && note !== -1) marks.add(last);
  for (const index of marks) prompt[index] = withOptions(prompt[index] as PromptMessage, ephemeral);
  const tools = params.tools ? [...params.tools] : undefined;
  const lastTool = tools?.length ? tools.length - 1 : -1;
  if (tools && lastTool >= 0) {
    const tool = tools[lastTool];
    if (tool?.type === "function") tools[lastTool] = withOptions(tool, ephemeral);
  }
  return { ...params, prompt, ...(tools ? { tools } : {}) };
}

/** OpenAI routes requests with the same `prompt_cache_key` to the same cache: one key per context. */
function openAICacheKey(params: CallOptions): CallOptions {
  const contextId = currentRequestContext()?.contextId;
  if (contextId === undefined) return params;
  return withOptions(params, { openai: { promptCacheKey: `downcity:${contextId}` } });
}

/**
 * Model middleware that lets the provider's prompt cache serve the stable prefix of every call:
 * Anthropic gets cache breakpoints, OpenAI a stable cache key per context. Other providers (an
 * OpenAI-compatible server) cache prefixes on their own, if at all, and get the call unchanged.
 */
export function promptCacheMiddleware(provider: "anthropic" | "openai"): LanguageModelMiddleware {
  return {
    specificationVersion: "v3",
    transformParams: async ({ params }) =>
      provider === "anthropic" ? anthropicBreakpoints(params) : openAICacheKey(params),
  };
}
