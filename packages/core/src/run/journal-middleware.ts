import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { type LanguageModel, wrapLanguageModel } from "ai";
import type { JournalUsage, ModelCallRecord } from "../store/run-journal.js";
import { type ModelPartObserver, modelPartObserver } from "./step-loop/part-observer.js";

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

/** Where the journal's middleware hands its model calls. */
export interface ModelCallSink {
  /** A call's record, once: when the model finished, when its stream ended or failed, or from `close`. */
  report(call: ModelCallCapture): void;
  /**
   * A streamed call began; `close` reports it with what arrived, if it is still open then. The run
   * calls it when it ends: a stream cut off by an abort may never be read again.
   */
  opened(close: () => void): void;
}

/**
 * The model as a journaled run calls it: one language-model middleware that hands every call's
 * request and response to `sink` as the provider sent them (not re-derived from the steps
 * afterwards), and, when the run continues finished steps (resumed after a crash, or retried after
 * a failed model call or a context-window overflow), puts the messages those steps added into each
 * call's prompt, right after the prompt the stream started with (and before what the stream's own
 * steps add). `carried()` names the stream under way and the messages it continues from; a new
 * stream (another `stream` number) starts from a prompt of its own length. One middleware, not
 * two stacked wrappers: each wrapper is another async layer on every model call of every turn.
 * A streamed call is read through a `ModelPartObserver` the step loop feeds, not a second stream.
 * A model given by id string (a gateway) is returned as is: it is resolved inside the AI SDK.
 */
export function journaledModel(
  model: LanguageModel,
  sink: ModelCallSink,
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
          sink.report({
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
          sink.report({ params, ...failedCall(started, error) });
          throw error;
        }
      },
      async wrapStream({ doStream, params }) {
        const started = Date.now();
        let result: Awaited<ReturnType<typeof doStream>>;
        try {
          result = await doStream();
        } catch (error) {
          sink.report({ params, ...failedCall(started, error) });
          throw error;
        }
        const observer = streamRecorder(params, started, sink.report);
        sink.opened(() => observer.end("aborted"));
        return { ...result, [modelPartObserver]: observer };
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
 * Collects a streamed call's content from the parts the step loop reads, and reports it once: at
 * the `finish` part (the model is done; its tools have not run yet), or when the loop stops reading
 * (the stream ended without a finish, failed, or the run was stopped: what arrived is recorded).
 */
function streamRecorder(
  params: LanguageModelV3CallOptions,
  started: number,
  report: (call: ModelCallCapture) => void,
): ModelPartObserver {
  const content: LanguageModelV3Content[] = [];
  const open = new Map<string, { type: "text" | "reasoning"; text: string }>();
  const response: NonNullable<ModelCallRecord["response"]> = { content, usage: journalUsage(undefined) };
  let error: string | undefined;
  let reported = false;
  const done = () => {
    if (reported) return;
    reported = true;
    for (const part of open.values()) content.push(part);
    report({
      params,
      startedAt: new Date(started).toISOString(),
      latencyMs: Date.now() - started,
      response,
      ...(error ? { error } : {}),
    });
  };
  return {
    part(part: LanguageModelV3StreamPart) {
      if (reported) return;
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
        done();
      } else if (part.type === "error")
        error = part.error instanceof Error ? part.error.message : String(part.error);
    },
    end(reason) {
      error ??= reason;
      done();
    },
  };
}
