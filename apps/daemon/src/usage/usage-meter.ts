import {
  currentModelPurpose,
  currentRequestContext,
  errorFields,
  type Logger,
  type ModelPurpose,
  type UsageStore,
} from "@downcity/core";
import type { UsageRecord } from "@downcity/core/usage";
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from "ai";
import { estimateCallTokens, type StreamTally, tallyPart } from "./estimate-call-tokens.js";

type WrappedModel = Parameters<typeof wrapLanguageModel>[0]["model"];
type CallParams = Parameters<NonNullable<LanguageModelMiddleware["wrapStream"]>>[0]["params"];
type Usage = { inputTokens: { total?: number; cacheRead?: number }; outputTokens: { total?: number } };

/** Options of `meteredModel`. */
export interface UsageMeterOptions {
  usageLog: UsageStore;
  logger: Logger;
  /** Recorded with each call, so the cluster's usage can be told apart by worker. */
  workerId?: string;
  now?: () => Date;
}

/**
 * The model every part of the daemon calls, counting each call in the usage log: compaction
 * summaries and memory maintenance (which call the model outside a run's steps) and a step cut off
 * by an abort or a broken stream (its tokens were spent; counted as an estimate). A run's finished
 * steps are left to the runtime's `step` events, which carry the step's number and finish reason.
 */
export function meteredModel(model: LanguageModel, options: UsageMeterOptions): LanguageModel {
  if (typeof model === "string" || model.specificationVersion !== "v3") return model;
  const inner = model as WrappedModel;
  const now = options.now ?? (() => new Date());
  // Calls made under one step marker (one model-loop attempt), to number a cut-off step; weak, so
  // a finished run leaves nothing behind.
  const stepCalls = new WeakMap<ModelPurpose, number>();

  const begin = () => {
    const purpose = currentModelPurpose();
    const request = currentRequestContext();
    const step = purpose?.purpose === "step" ? (stepCalls.get(purpose) ?? 0) : 0;
    if (purpose?.purpose === "step") stepCalls.set(purpose, step + 1);
    const started = Date.now();
    return (outcome: { usage?: Usage; finishReason: string; estimated?: { tokens: StreamTally } }) => {
      const estimated = outcome.estimated ? outcome.estimated.tokens : undefined;
      const input = estimated ? estimated.inputTokens : (outcome.usage?.inputTokens.total ?? 0);
      const output = estimated ? estimated.outputTokens : (outcome.usage?.outputTokens.total ?? 0);
      const record: UsageRecord = {
        at: now().toISOString(),
        contextId: purpose?.contextId ?? request?.contextId ?? "",
        requestId: request?.requestId ?? "",
        step,
        provider: inner.provider,
        model: inner.modelId,
        inputTokens: input,
        outputTokens: output,
        cachedInputTokens: estimated ? 0 : (outcome.usage?.inputTokens.cacheRead ?? 0),
        totalTokens: input + output,
        durationMs: Date.now() - started,
        finishReason: outcome.finishReason,
        purpose: purpose?.purpose ?? "other",
        ...(estimated ? { estimated: true } : {}),
        ...(options.workerId ? { workerId: options.workerId } : {}),
      };
      options.usageLog
        .append(record)
        .catch((error: unknown) => options.logger.warn(errorFields(error), "could not write the usage log"));
    };
  };
  // A run's own finished step is the runtime's `step` event's to record.
  const ownedByRun = () => currentModelPurpose()?.purpose === "step";

  return wrapLanguageModel({
    model: inner,
    middleware: {
      specificationVersion: "v3",
      async wrapGenerate({ doGenerate, params }) {
        const finish = begin();
        const skip = ownedByRun();
        try {
          const result = await doGenerate();
          if (!skip) finish({ usage: result.usage, finishReason: result.finishReason.unified });
          return result;
        } catch (error) {
          if (params.abortSignal?.aborted)
            finish({
              finishReason: "aborted",
              estimated: { tokens: estimateCallTokens(params, { inputTokens: 0, outputTokens: 0 }) },
            });
          throw error;
        }
      },
      async wrapStream({ doStream, params }) {
        const finish = begin();
        const skip = ownedByRun();
        const result = await doStream();
        return { ...result, stream: meteredStream(result.stream, params, skip, finish) };
      },
    },
  });
}

/** The provider's stream, passed through part by part; a stream that ends without `finish` was cut off. */
function meteredStream<Part extends { type: string }>(
  source: ReadableStream<Part>,
  params: CallParams,
  skipFinished: boolean,
  finish: (outcome: { usage?: Usage; finishReason: string; estimated?: { tokens: StreamTally } }) => void,
): ReadableStream<Part> {
  const reader = source.getReader();
  const tally: StreamTally = { inputTokens: 0, outputTokens: 0 };
  let settled = false;
  const cutOff = (finishReason: string) => {
    if (settled) return;
    settled = true;
    params.abortSignal?.removeEventListener("abort", onAbort);
    finish({ finishReason, estimated: { tokens: estimateCallTokens(params, tally) } });
  };
  // The abort is the cut, whether or not the provider's stream notices it (and whatever it sends after).
  const onAbort = () => cutOff("aborted");
  params.abortSignal?.addEventListener("abort", onAbort, { once: true });
  return new ReadableStream<Part>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Part>;
      try {
        next = await reader.read();
      } catch (error) {
        cutOff(params.abortSignal?.aborted ? "aborted" : "error");
        throw error;
      }
      if (next.done) {
        cutOff("cut-off");
        controller.close();
        return;
      }
      const part = next.value;
      tallyPart(part, tally);
      if (part.type === "finish" && !settled) {
        settled = true;
        params.abortSignal?.removeEventListener("abort", onAbort);
        const done = part as unknown as { usage: Usage; finishReason: { unified: string } };
        if (!skipFinished) finish({ usage: done.usage, finishReason: done.finishReason.unified });
      }
      controller.enqueue(part);
    },
    async cancel(reason) {
      cutOff("aborted");
      await reader.cancel(reason);
    },
  });
}
