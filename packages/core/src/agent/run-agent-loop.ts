import {
  type LanguageModel,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  streamText,
  type ToolSet,
} from "ai";
import { DowncityError } from "../errors/downcity-error.js";
import { errorFields, type Logger } from "../logger/logger.js";
import { isContextWindowError } from "./context-window-error.js";
import type { HistoryWindow } from "./history-window.js";

const maxContextRetries = 3;

/** What the model produced in a run: its final text and every step. */
export interface AgentLoopResult {
  finalText: string;
  steps: Array<StepResult<ToolSet>>;
}

/** Options of `runAgentLoop`. */
export interface AgentLoopOptions {
  model: LanguageModel;
  contextId: string;
  system: ModelMessage[];
  systemTokens: number;
  tools: ToolSet;
  activeTools?: string[];
  maxSteps: number;
  /** Newest history messages sent verbatim (halved on each context-window overflow). */
  keepLast: number;
  historyWindow: HistoryWindow;
  abortSignal: AbortSignal;
  logger: Logger;
  /** Called with the ids of the history messages the model sees. */
  onWindow: (ids: Set<string>) => void;
  /** Called between steps: messages that arrived meanwhile, already persisted, to add to the prompt. */
  takeArrivals: (step: number) => Promise<ModelMessage[]>;
  onTextDelta: (delta: string) => void;
}

/**
 * Streams the tool loop over system messages plus the history window. Messages arriving mid-run join
 * at step boundaries; a context-window overflow compacts and retries with a smaller window.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { contextId, abortSignal, logger, historyWindow } = options;
  let window = options.keepLast;
  for (let attempt = 0; ; attempt++) {
    const built = await historyWindow.build(contextId, options.systemTokens, window, abortSignal);
    options.onWindow(built.ids);
    // Messages merged mid-run, with the index (in the step's message list) where each batch belongs.
    const injected: Array<{ at: number; messages: ModelMessage[] }> = [];
    const steps: Array<StepResult<ToolSet>> = [];
    try {
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
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") options.onTextDelta(part.text);
        else if (part.type === "error") throw part.error;
        else if (part.type === "abort")
          throw new DowncityError("RUN_ABORTED", "The run was aborted (runtime closing)");
      }
      return { finalText: await result.text, steps };
    } catch (error) {
      if (isContextWindowError(error) && attempt < maxContextRetries) {
        logger.warn({ attempt: attempt + 1 }, "context window exceeded; compacting and retrying");
        window = Math.max(2, Math.floor(Math.min(window, built.ids.size) / 2));
        try {
          await historyWindow.compact(
            contextId,
            Math.max(1, window - 1),
            "context-window-exceeded",
            abortSignal,
          );
        } catch (compactError) {
          logger.warn(errorFields(compactError), "compaction failed; retrying with a smaller window");
        }
        continue;
      }
      throw runFailure(error, abortSignal);
    }
  }
}

/** The DowncityError a failed run reports. */
function runFailure(error: unknown, abortSignal: AbortSignal): DowncityError {
  if (isContextWindowError(error)) {
    return new DowncityError(
      "CONTEXT_WINDOW_EXCEEDED",
      `The model's context window was exceeded ${maxContextRetries + 1} times even after compaction. Lower history.keepLast in downcity.json or use a model with a larger window.`,
      { cause: error, field: "history.keepLast" },
    );
  }
  if (DowncityError.isInstance(error)) return error;
  if (abortSignal.aborted)
    return new DowncityError("RUN_ABORTED", "The run was aborted (runtime closing)", { cause: error });
  return new DowncityError(
    "MODEL_ERROR",
    `The model call failed: ${(error as Error)?.message ?? String(error)}`,
    {
      cause: error,
    },
  );
}
