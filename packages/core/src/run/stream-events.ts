import type { LanguageModel, TextStreamPart, ToolSet } from "ai";
import type { Logger } from "../logger/logger.js";
import type { RunAbortedError } from "./run-aborted-error.js";
import type { RunProgress } from "./run-progress.js";
import type { AssistantPart } from "./run-result.js";
import { usageFromModel } from "./run-usage.js";
import type { RunWatchdog } from "./run-watchdog.js";
import type { RuntimeEvent } from "./runtime-event.js";
import { summarizeToolInput, summarizeToolOutput } from "./tool-activity.js";

type StreamPart = TextStreamPart<ToolSet>;
type PartOf<Type extends StreamPart["type"]> = Extract<StreamPart, { type: Type }>;

/** Turns the parts of a model stream into runtime events, the run's progress and the watchdog's clocks. */
export interface StreamEvents {
  /** A model stream begins (the first, or a retry): its first call is timed from now. */
  streamStarted(): void;
  /** Handles one part: "aborted" when the stream reports an abort; an error part is thrown. */
  handle(part: StreamPart): "aborted" | undefined;
  /** Ends the step under way as aborted: each running tool gets an `aborted` tool-result event. */
  aborted(error: RunAbortedError): AssistantPart[];
}

/** Creates the event translation of one run's model streams. */
export function createStreamEvents(options: {
  contextId: string;
  requestId: string;
  model: LanguageModel;
  progress: RunProgress;
  watchdog: RunWatchdog;
  emit: (event: RuntimeEvent) => void;
  logger: Logger;
  now: () => number;
}): StreamEvents {
  const { contextId, requestId, progress, watchdog, emit, now } = options;
  const model = options.model;
  const provider = (typeof model === "string" ? model.split(":")[0] : model.provider) ?? "unknown";
  const modelId = typeof model === "string" ? model : model.modelId;
  // A model call lasts from the request (the stream's start, or the previous step's end) to its
  // first tool call or its finish; tool execution is not the model's time.
  let callStartedAt = now();
  let callEndedAt: number | undefined;

  const toolResult = (toolCallId: string, toolName: string, outcome: { ok: boolean; summary?: string }) => {
    const call = progress.toolFinished(toolCallId);
    if (call) watchdog.toolFinished();
    const durationMs = call ? now() - call.startedAt : 0;
    const step = progress.step();
    emit({ type: "tool-result", contextId, requestId, step, toolCallId, toolName, durationMs, ...outcome });
  };

  const finishStep = (part: PartOf<"finish-step">) => {
    const usage = usageFromModel(part.usage);
    progress.callFinished(usage);
    const durationMs = (callEndedAt ?? now()) - callStartedAt;
    callStartedAt = now();
    const stepModel = part.response?.modelId ?? modelId;
    const step = progress.step();
    const { inputTokens, outputTokens, cachedInputTokens } = usage;
    const finishReason = part.finishReason;
    options.logger.info(
      {
        provider,
        model: stepModel,
        inputTokens,
        outputTokens,
        cachedInputTokens,
        durationMs,
        finishReason,
        step,
      },
      "model call",
    );
    emit({
      type: "step",
      contextId,
      requestId,
      step,
      provider,
      model: stepModel,
      finishReason,
      durationMs,
      usage,
    });
  };

  const handlers: { [Type in StreamPart["type"]]?: (part: PartOf<Type>) => void } = {
    "start-step": () => {
      progress.stepStarted();
      callEndedAt = undefined;
      if (progress.step() > 0) watchdog.stepStarted();
    },
    "text-delta": (part) => {
      progress.textDelta(part.text);
      emit({ type: "text-delta", contextId, requestId, delta: part.text });
    },
    "tool-call": (part) => {
      callEndedAt ??= now();
      const { toolCallId, toolName, input } = part;
      progress.toolStarted({ toolCallId, toolName, input, startedAt: now() });
      watchdog.toolStarted();
      const summary = summarizeToolInput(input);
      emit({ type: "tool-call", contextId, requestId, step: progress.step(), toolCallId, toolName, summary });
    },
    "tool-result": (part) => {
      if (!part.preliminary) toolResult(part.toolCallId, part.toolName, summarizeToolOutput(part.output));
    },
    "tool-error": (part) => {
      const summary = part.error instanceof Error ? part.error.message : String(part.error);
      toolResult(part.toolCallId, part.toolName, { ok: false, summary });
    },
    "finish-step": finishStep,
    error: (part) => {
      throw part.error;
    },
  };

  return {
    streamStarted() {
      callStartedAt = now();
      callEndedAt = undefined;
    },
    handle(part) {
      watchdog.activity();
      if (part.type === "abort") return "aborted";
      (handlers[part.type] as ((part: StreamPart) => void) | undefined)?.(part);
      return undefined;
    },
    aborted(error) {
      const { parts, closed } = progress.abort(error);
      for (const call of closed) {
        emit({
          type: "tool-result",
          contextId,
          requestId,
          step: progress.step(),
          toolCallId: call.toolCallId,
          toolName: call.toolName,
          ok: false,
          durationMs: now() - call.startedAt,
          summary: "aborted",
        });
      }
      return parts;
    },
  };
}
