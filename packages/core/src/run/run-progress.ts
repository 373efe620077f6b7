import type { StepResult, ToolSet } from "ai";
import type { RunAbortedError } from "./run-aborted-error.js";
import type { AssistantPart } from "./run-result.js";
import { addUsage, emptyUsage, type RunUsage } from "./run-usage.js";

/** A tool call the model made whose result has not come back yet. */
export interface RunningToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  startedAt: number;
}

/** What a run has produced so far: its finished steps, its usage, and the step under way. */
export interface RunProgress {
  readonly steps: Array<StepResult<ToolSet>>;
  readonly usage: RunUsage;
  /** Index of the step under way: -1 before the first one starts. */
  step(): number;
  stepStarted(): void;
  textDelta(text: string): void;
  toolStarted(call: RunningToolCall): void;
  /** The call's record, or undefined for a call this run did not see start. */
  toolFinished(toolCallId: string): RunningToolCall | undefined;
  /** A model call finished: its tokens join the run's usage. */
  callFinished(usage: RunUsage): void;
  /** The step boundary: the AI SDK awaits this before the next step begins. */
  stepFinished(step: StepResult<ToolSet>): void;
  /** A context-overflow retry starts the steps over (tokens used stay counted). */
  restart(): void;
  /** Ends the step under way: the text it streamed and its running tools, failed with the abort. */
  abort(error: RunAbortedError): { parts: AssistantPart[]; closed: RunningToolCall[] };
}

/** Creates the progress record of one run. */
export function createRunProgress(): RunProgress {
  const steps: Array<StepResult<ToolSet>> = [];
  const usage = emptyUsage();
  const running = new Map<string, RunningToolCall>();
  let stepIndex = -1;
  let stepText = "";
  return {
    steps,
    usage,
    step: () => stepIndex,
    stepStarted() {
      stepIndex++;
      stepText = "";
    },
    textDelta(text) {
      stepText += text;
    },
    toolStarted(call) {
      running.set(call.toolCallId, call);
    },
    toolFinished(toolCallId) {
      const call = running.get(toolCallId);
      running.delete(toolCallId);
      return call;
    },
    callFinished(callUsage) {
      addUsage(usage, callUsage);
    },
    stepFinished(step) {
      steps.push(step);
    },
    restart() {
      steps.length = 0;
      stepIndex = -1;
    },
    abort(error) {
      const parts: AssistantPart[] = [];
      // The step under way has not finished when fewer steps are recorded than it counts.
      if (steps.length <= stepIndex && stepText) parts.push({ type: "text", text: stepText });
      const closed = [...running.values()];
      for (const call of closed) {
        parts.push({
          type: "dynamic-tool",
          toolName: call.toolName,
          toolCallId: call.toolCallId,
          state: "output-error",
          input: call.input,
          errorText: `aborted: ${error.message}`,
        });
      }
      running.clear();
      return { parts, closed };
    },
  };
}
