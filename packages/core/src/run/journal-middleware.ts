import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { type LanguageModel, wrapLanguageModel } from "ai";
import type { JournalUsage, ModelCallRecord } from "../store/run-journal.js";

/** What the middleware hands over once per model call: the request it saw, the response it streamed. */
export type ModelCallCapture = Pick<ModelCallRecord, "response" | "error" | "startedAt" | "latencyMs"> & {
  params: LanguageModelV3CallOptions;
};

/** Turns the provider's usage into the journal's counts. */
export function journalUsage(usage: LanguageModelV3Usage | undefined): JournalUsage {
  const input = usage?.inputTokens.total ?? 0;
  const output = usage?.outputTokens.total ?? 0;
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: usage?.inputTokens.cacheRead ?? 0,
    totalTokens: input + output,
  };
}

/**
 * The model as a journaled run calls it: one language-model middleware that hands every call's
 * request and response to `onCall` as the provider sent them (not re-derived from the steps
 * afterwards), and, when the run continues finished steps (resumed after a crash, or retried after
 * a failed model call or a context-window overflow), puts the messages those steps added into each
 * call's prompt, right after the prompt the stream started with (and before what the stream's own
 * steps add). `carried()` names the stream under way and the messages it continues from; a new
 * stream (another `stream` number) starts from a prompt of its own length. One middleware, not
 * two stacked wrappers: each wrapper is another async layer on every model call of every turn.
 * A model given by id string (a gateway) is returned as is: it is resolved inside the AI SDK.
 */
export function journaledModel(
  model: LanguageModel,
  onCall: (call: ModelCallCapture) => void,
  carried: () => { stream: number; messages: readonly unknown[] } = () => noneCarried,
): LanguageModel {
  if (typeof model === "string" || model.specificationVersion !== "v3") return model;
  let stream: number | undefined;
  let startLength = 0;
  return wrapLanguageModel({
    model: model as LanguageModelV3,
    middleware: {
      specificationVersion: "v3",
      transformParams: async ({ params }) => {
        const current = carried();
        if (current.messages.length === 0) return params;
        if (current.stream !== stream) {
          stream = current.stream;
          startLength = params.prompt.length;
        }
        const prompt = [...params.prompt];
        // Step and tool messages share the prompt's shape (role, content parts with the same fields).
        prompt.splice(startLength, 0, ...(current.messages as LanguageModelV3CallOptions["prompt"]));
        return { ...params, prompt };
      },
      async wrapGenerate({ doGenerate, params }) {
        const started = Date.now();
        try {
          const result = await doGenerate();
          onCall({
            params,
            startedAt: new Date(started).toISOString(),
            latencyMs: Date.now() - started,
            response: {
              ...(result.response?.id ? { id: result.response.id } : {}),
              ...(result.response?.modelId ? { modelId: result.response.modelId } : {}),
              content: result.content,
              finishReason: result.finishReason.unified,
              usage: journalUsage(result.usage),
              ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
              warnings: result.warnings,
            },
          });
          return result;
        } catch (error) {
          onCall({ params, ...failedCall(started, error) });
          throw error;
        }
      },
      async wrapStream({ doStream, params }) {
        const started = Date.now();
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          onCall({ params, ...failedCall(started, error) });
          throw error;
        }
        return { ...result, stream: recordStream(result.stream, params, started, onCall) };
      },
    },
  });
}

const noneCarried = { stream: 0, messages: [] as readonly unknown[] };

function failedCall(started: number, error: unknown) {
  return {
    startedAt: new Date(started).toISOString(),
    latencyMs: Date.now() - started,
    error: error instanceof Error ? error.message : String(error),
  };
}

/**
 * The stream as it came, read part by part, collecting its content; reports once when it ends. A
 * pulling stream, not `pipeThrough` a `TransformStream`: that pair of streams and its pipe cost
 * about four times as much per model call (measured with Node 20's web streams).
 */
function recordStream(
  source: ReadableStream<LanguageModelV3StreamPart>,
  params: LanguageModelV3CallOptions,
  started: number,
  onCall: (call: ModelCallCapture) => void,
): ReadableStream<LanguageModelV3StreamPart> {
  const content: LanguageModelV3Content[] = [];
  const open = new Map<string, { type: "text" | "reasoning"; text: string }>();
  const response: NonNullable<ModelCallRecord["response"]> = { content, usage: journalUsage(undefined) };
  let error: string | undefined;
  let reported = false;
  const report = () => {
    if (reported) return;
    reported = true;
    for (const part of open.values()) content.push(part);
    onCall({
      params,
      startedAt: new Date(started).toISOString(),
      latencyMs: Date.now() - started,
      response,
      ...(error ? { error } : {}),
    });
  };
  // A run stopped mid-stream never finishes the stream: the call is still recorded, with what arrived.
  params.abortSignal?.addEventListener(
    "abort",
    () => {
      error ??= "aborted";
      report();
    },
    { once: true },
  );
  const collect = (part: LanguageModelV3StreamPart) => {
    if (part.type === "stream-start") response.warnings = part.warnings;
    else if (part.type === "response-metadata") {
      if (part.id) response.id = part.id;
      if (part.modelId) response.modelId = part.modelId;
    } else if (part.type === "text-start" || part.type === "reasoning-start")
      open.set(part.id, { type: part.type === "text-start" ? "text" : "reasoning", text: "" });
    else if (part.type === "text-delta" || part.type === "reasoning-delta") {
      const entry = open.get(part.id);
      if (entry) entry.text += part.delta;
    } else if (part.type === "text-end" || part.type === "reasoning-end") {
      const entry = open.get(part.id);
      if (entry) content.push(entry);
      open.delete(part.id);
    } else if (
      part.type === "tool-call" ||
      part.type === "tool-result" ||
      part.type === "file" ||
      part.type === "source"
    )
      content.push(part as LanguageModelV3Content);
    else if (part.type === "finish") {
      response.finishReason = part.finishReason.unified;
      response.usage = journalUsage(part.usage);
      if (part.providerMetadata) response.providerMetadata = part.providerMetadata;
      // Recorded as soon as the model is done, not when the stream ends after the tools ran.
      report();
    } else if (part.type === "error")
      error = part.error instanceof Error ? part.error.message : String(part.error);
  };
  const reader = source.getReader();
  return new ReadableStream<LanguageModelV3StreamPart>({
    // Not an async function: its own promise and await would be two more per part.
    pull: (controller) =>
      reader.read().then((next) => {
        if (next.done) {
          report();
          controller.close();
          return;
        }
        collect(next.value);
        controller.enqueue(next.value);
      }),
    cancel: (reason) => reader.cancel(reason),
  });
}
