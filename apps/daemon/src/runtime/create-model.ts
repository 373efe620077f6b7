import { type LlmConfig, promptCacheMiddleware } from "@downcity/core";
import { type LanguageModel, type TranscriptionModel, wrapLanguageModel } from "ai";
import { createModelFetch } from "./model-fetch.js";

/** A transcription model object (`llm.transcription`), as the runtime takes it. */
type TranscriptionModelObject = Exclude<TranscriptionModel, string>;

/**
 * A model built from `llm` (with its transcription model when `llm.transcription` names one), or
 * the reason there is none (shown on every chat).
 */
export type ModelChoice =
  | { model: LanguageModel; transcription?: TranscriptionModelObject; hint?: undefined }
  | { model?: undefined; transcription?: undefined; hint: string };

const example =
  'Set "llm" in downcity.json, e.g. { "provider": "openai", "model": "gpt-4.1-mini", "apiKey": "${OPENAI_API_KEY}" }.';

// One kept-alive HTTP client for every OpenAI-compatible model of the process.
let modelFetch: typeof fetch | undefined;

/** Builds the AI SDK model of a project's `llm` section; only the chosen provider package is loaded. */
export async function createModel(
  llm: LlmConfig | undefined,
  env: Record<string, string | undefined> = process.env,
): Promise<ModelChoice> {
  if (!llm) return { hint: `No model is configured: downcity.json has no "llm" field. ${example}` };
  if (llm.provider === "openai") {
    const apiKey = llm.apiKey ?? env.OPENAI_API_KEY;
    if (!apiKey && !llm.baseURL) {
      return {
        hint: 'No API key for "llm.provider": "openai". Set "llm.apiKey" (e.g. "${OPENAI_API_KEY}") or OPENAI_API_KEY.',
      };
    }
    const { createOpenAI } = await import("@ai-sdk/openai");
    const provider = createOpenAI({
      ...(apiKey ? { apiKey } : {}),
      ...(llm.baseURL ? { baseURL: llm.baseURL } : {}),
    });
    // A custom baseURL is usually a chat-completions server; the real OpenAI API gets the Responses API.
    const model = llm.baseURL ? provider.chat(llm.model) : provider(llm.model);
    // One prompt_cache_key per context keeps a conversation's calls on the cache that holds its prefix.
    return {
      model: wrapLanguageModel({ model, middleware: promptCacheMiddleware("openai") }),
      ...(llm.transcription ? { transcription: provider.transcription(llm.transcription) } : {}),
    };
  }
  if (llm.provider === "anthropic") {
    const apiKey = llm.apiKey ?? env.ANTHROPIC_API_KEY;
    if (!apiKey) {
      return {
        hint: 'No API key for "llm.provider": "anthropic". Set "llm.apiKey" (e.g. "${ANTHROPIC_API_KEY}") or ANTHROPIC_API_KEY.',
      };
    }
    const { createAnthropic } = await import("@ai-sdk/anthropic");
    const provider = createAnthropic({ apiKey, ...(llm.baseURL ? { baseURL: llm.baseURL } : {}) });
    // Cache breakpoints on the tools, the system prompt and the history prefix: Anthropic caches only where asked.
    return {
      model: wrapLanguageModel({
        model: provider(llm.model),
        middleware: promptCacheMiddleware("anthropic"),
      }),
    };
  }
  if (!llm.baseURL) {
    return {
      hint: '"llm.provider": "openai-compatible" needs "llm.baseURL", e.g. "http://127.0.0.1:11434/v1".',
    };
  }
  const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
  modelFetch ??= createModelFetch();
  const provider = createOpenAICompatible({
    name: "openai-compatible",
    baseURL: llm.baseURL,
    fetch: modelFetch,
    ...(llm.apiKey ? { apiKey: llm.apiKey } : {}),
    supportsStructuredOutputs: llm.structuredOutputs,
  });
  return {
    model: provider.chatModel(llm.model),
    ...(llm.transcription
      ? { transcription: await compatibleTranscription(llm.baseURL, llm.apiKey, llm.transcription) }
      : {}),
  };
}

/**
 * A transcription model on an OpenAI-compatible server. The compatible provider has no speech API;
 * such servers (vLLM, LocalAI, speaches, Groq) serve OpenAI's `/audio/transcriptions`, which the
 * OpenAI provider speaks when pointed at their base URL.
 */
async function compatibleTranscription(
  baseURL: string,
  apiKey: string | undefined,
  modelId: string,
): Promise<TranscriptionModelObject> {
  const { createOpenAI } = await import("@ai-sdk/openai");
  // A local server often takes no key; the OpenAI client insists on one, so a placeholder is sent.
  return createOpenAI({ baseURL, apiKey: apiKey ?? "no-key" }).transcription(modelId);
}
