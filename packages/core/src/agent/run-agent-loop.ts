import {
  type LanguageModel,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  streamText,
  type ToolSet,
} from "ai";
import { DowncityError } from "../errors/downcity-error.js";
import type { HistoryMessage } from "../history/history-message.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { RunAbortedError } from "../run/run-aborted-error.js";
import { addUsage, emptyUsage, type RunUsage, usageFromModel } from "../run/run-usage.js";
import { createRunWatchdog, defaultRunLimits, type RunLimits } from "../run/run-watchdog.js";
import { isContextWindowError } from "./context-window-error.js";
import type { HistoryWindow } from "./history-window.js";
import type { RuntimeEvent } from "./runtime-event.js";
import { summarizeToolInput, summarizeToolOutput } from "./tool-activity.js";

const maxContextRetries = 3;

type Part = HistoryMessage["parts"][number];

/** What the model produced in a run: its final text, every finished step and the tokens used. */
export interface AgentLoopResult {
  finalText: string;
  steps: Array<StepResult<ToolSet>>;
  usage: RunUsage;
  /** Set when a cancel, a limit or shutdown stopped the run: why, and what the unfinished step had produced. */
  aborted?: { error: RunAbortedError; parts: Part[] };
}

/** Options of `runAgentLoop`. */
export interface AgentLoopOptions {
  model: LanguageModel;
  contextId: string;
  requestId: string;
  system: ModelMessage[];
  systemTokens: number;
  tools: ToolSet;
  activeTools?: string[];
  maxSteps: number;
  /** Step, run and stream-idle time limits [defaultRunLimits]. */
  limits?: Partial<RunLimits>;
  /** Newest history messages sent verbatim (halved on each context-window overflow). */
  keepLast: number;
  historyWindow: HistoryWindow;
  /** Cancel and shutdown: aborting it stops the run (with a RunAbortedError as reason, to say why). */
  abortSignal: AbortSignal;
  /** Called when a limit stops the run, to abort `abortSignal` too (tools and hosts watch that signal). */
  abortRun?: (reason: RunAbortedError) => void;
  logger: Logger;
  /** Called with the ids of the history messages the model sees. */
  onWindow: (ids: Set<string>) => void;
  /** Called between steps: messages that arrived meanwhile, already persisted, to add to the prompt. */
  takeArrivals: (step: number) => Promise<ModelMessage[]>;
  onTextDelta: (delta: string) => void;
  /** Receives the run's `tool-call`, `tool-result` and `step` events. */
  emit: (event: RuntimeEvent) => void;
  now?: () => number;
}

/**
 * Streams the tool loop over system messages plus the history window. Messages arriving mid-run join
 * at step boundaries; a context-window overflow compacts and retries with a smaller window. A watchdog
 * bounds steps, the run and stream silence; an aborted run returns what it had instead of throwing.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { contextId, requestId, logger, historyWindow, emit } = options;
  const now = options.now ?? Date.now;
  const watchdog = createRunWatchdog({
    limits: { ...defaultRunLimits, ...options.limits },
    parent: options.abortSignal,
  });
  const abortSignal = watchdog.signal;
  abortSignal.addEventListener("abort", () => options.abortRun?.(abortSignal.reason as RunAbortedError), {
    once: true,
  });
  const stopped = new Promise<"stopped">((resolve) => {
    if (abortSignal.aborted) resolve("stopped");
    else abortSignal.addEventListener("abort", () => resolve("stopped"), { once: true });
  });
  const provider =
    (typeof options.model === "string" ? options.model.split(":")[0] : options.model.provider) ?? "unknown";
  const usage = emptyUsage();
  const steps: Array<StepResult<ToolSet>> = [];
  // The unfinished step: its text so far and the tool calls still executing.
  let stepIndex = -1;
  let stepText = "";
  const running = new Map<string, { toolName: string; input: unknown; startedAt: number }>();

  const abortedResult = (): AgentLoopResult => {
    const error = abortSignal.reason as RunAbortedError;
    const parts: Part[] = [];
    if (steps.length <= stepIndex && stepText) parts.push({ type: "text", text: stepText });
    for (const [toolCallId, call] of running) {
      parts.push({
        type: "dynamic-tool",
        toolName: call.toolName,
        toolCallId,
        state: "output-error",
        input: call.input,
        errorText: `aborted: ${error.message}`,
      });
      emit({
        type: "tool-result",
        contextId,
        requestId,
        step: stepIndex,
        toolCallId,
        toolName: call.toolName,
        ok: false,
        durationMs: now() - call.startedAt,
        summary: "aborted",
      });
    }
    running.clear();
    logger.warn({ reason: error.reason, steps: steps.length }, `run aborted: ${error.message}`);
    return { finalText: "", steps, usage, aborted: { error, parts } };
  };

  let window = options.keepLast;
  try {
    for (let attempt = 0; ; attempt++) {
      let windowIds = new Set<string>();
      try {
        const built = await historyWindow.build(contextId, options.systemTokens, window, abortSignal);
        windowIds = built.ids;
        options.onWindow(built.ids);
        // Messages merged mid-run, with the index (in the step's message list) where each batch belongs.
        const injected: Array<{ at: number; messages: ModelMessage[] }> = [];
        // The first step is timed from the call: a provider that never answers sends no start-step.
        watchdog.stepStarted();
        const result = streamText({
          model: options.model,
          messages: [...options.system, ...built.messages],
          allowSystemInMessages: true,
          tools: options.tools,
          ...(options.activeTools ? { activeTools: options.activeTools } : {}),
          stopWhen: stepCountIs(options.maxSteps),
          abortSignal,
          prepareStep: async ({ messages, stepNumber }) => {
            const arrived = stepNumber > 0 ? await options.takeArrivals(stepNumber) : [];
            if (arrived.length > 0) injected.push({ at: messages.length, messages: arrived });
            if (injected.length === 0) return undefined;
            const withInjected = [...messages];
            for (const entry of [...injected].reverse()) withInjected.splice(entry.at, 0, ...entry.messages);
            return { messages: withInjected };
          },
          onStepFinish: (step) => {
            steps.push(step as StepResult<ToolSet>);
          },
        });
        const parts = result.fullStream[Symbol.asyncIterator]();
        // A model call lasts from the request (the stream's start, or the previous step's end) to its
        // first tool call or its finish; tool execution is not the model's time.
        let callStartedAt = now();
        let callEndedAt: number | undefined;
        for (;;) {
          // A stalled provider may never settle next(): the abort wins the race so the lane moves on.
          const next = await Promise.race([parts.next(), stopped]);
          if (next === "stopped") {
            parts.return?.().catch(() => {});
            return abortedResult();
          }
          if (next.done) break;
          const part = next.value;
          watchdog.activity();
          if (part.type === "start-step") {
            stepIndex++;
            stepText = "";
            callEndedAt = undefined;
            if (stepIndex > 0) watchdog.stepStarted();
          } else if (part.type === "text-delta") {
            stepText += part.text;
            options.onTextDelta(part.text);
          } else if (part.type === "tool-call") {
            callEndedAt ??= now();
            running.set(part.toolCallId, { toolName: part.toolName, input: part.input, startedAt: now() });
            watchdog.toolStarted();
            emit({
              type: "tool-call",
              contextId,
              requestId,
              step: stepIndex,
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              summary: summarizeToolInput(part.input),
            });
          } else if (part.type === "tool-result" || part.type === "tool-error") {
            const call = running.get(part.toolCallId);
            if (part.type === "tool-result" && part.preliminary) continue;
            running.delete(part.toolCallId);
            if (call) watchdog.toolFinished();
            const outcome =
              part.type === "tool-result"
                ? summarizeToolOutput(part.output)
                : {
                    ok: false,
                    summary: part.error instanceof Error ? part.error.message : String(part.error),
                  };
            emit({
              type: "tool-result",
              contextId,
              requestId,
              step: stepIndex,
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              durationMs: call ? now() - call.startedAt : 0,
              ...outcome,
            });
          } else if (part.type === "finish-step") {
            const stepUsage = usageFromModel(part.usage);
            addUsage(usage, stepUsage);
            const durationMs = (callEndedAt ?? now()) - callStartedAt;
            callStartedAt = now();
            const model =
              part.response?.modelId ??
              (typeof options.model === "string" ? options.model : options.model.modelId);
            logger.info(
              {
                provider,
                model,
                inputTokens: stepUsage.inputTokens,
                outputTokens: stepUsage.outputTokens,
                cachedInputTokens: stepUsage.cachedInputTokens,
                durationMs,
                finishReason: part.finishReason,
                step: stepIndex,
              },
              "model call",
            );
            emit({
              type: "step",
              contextId,
              requestId,
              step: stepIndex,
              provider,
              model,
              finishReason: part.finishReason,
              durationMs,
              usage: stepUsage,
            });
          } else if (part.type === "error") throw part.error;
          else if (part.type === "abort") return abortedResult();
        }
        return { finalText: await result.text, steps, usage };
      } catch (error) {
        if (abortSignal.aborted) return abortedResult();
        if (isContextWindowError(error) && attempt < maxContextRetries) {
          logger.warn({ attempt: attempt + 1 }, "context window exceeded; compacting and retrying");
          window = Math.max(2, Math.floor(Math.min(window, windowIds.size) / 2));
          try {
            await historyWindow.compact(
              contextId,
              Math.max(1, window - 1),
              "context-window-exceeded",
              abortSignal,
            );
          } catch (compactError) {
            if (abortSignal.aborted) return abortedResult();
            logger.warn(errorFields(compactError), "compaction failed; retrying with a smaller window");
          }
          steps.length = 0;
          stepIndex = -1;
          continue;
        }
        throw runFailure(error);
      }
    }
  } finally {
    watchdog.dispose();
  }
}

/** The DowncityError a failed run reports. */
function runFailure(error: unknown): DowncityError {
  if (isContextWindowError(error)) {
    return new DowncityError(
      "CONTEXT_WINDOW_EXCEEDED",
      `The model's context window was exceeded ${maxContextRetries + 1} times even after compaction. Lower history.keepLast in downcity.json or use a model with a larger window.`,
      { cause: error, field: "history.keepLast" },
    );
  }
  if (DowncityError.isInstance(error)) return error;
  return new DowncityError(
    "MODEL_ERROR",
    `The model call failed: ${(error as Error)?.message ?? String(error)}`,
    {
      cause: error,
    },
  );
}
