import type { AgentRuntime } from "../../agent/agent-runtime.js";
import type { RuntimeEvent } from "../../run/runtime-event.js";
import { maskStepText } from "./mask-step-text.js";

/** What a context's run is doing now, as `/status` and the progress message show it. */
export interface RunActivityState {
  requestId: string;
  /** When the run started (ms since the epoch). */
  since: number;
  /** The step under way in chat words ("running `npm test`", "using web_fetch"), secrets masked. */
  step?: string;
  /** Tool calls made so far. */
  toolCalls: number;
}

/** The activity of every context whose run is in progress; see `createRunActivity`. */
export interface RunActivity {
  get(contextId: string): RunActivityState | undefined;
  /** Calls `listener` with a context id whenever its activity changes (started, new step, ended). */
  onChange(listener: (contextId: string, state: RunActivityState | undefined) => void): () => void;
  close(): void;
}

const shellTools = new Set(["shell_exec", "shell_start"]);

/** A tool call in chat words; commands masked (see `maskStepText`). */
export function describeToolCall(toolName: string, summary: string, secrets: readonly string[] = []): string {
  const shown = maskStepText(summary, secrets);
  if (shellTools.has(toolName) && shown) return `running \`${shown}\``;
  if (toolName === "shell_wait") return "waiting for a command to finish";
  return `using ${toolName}`;
}

/**
 * Follows the runtime's events into one state per running context: its start, the step under way,
 * its end. Only tool calls become steps (the model's own text is the answer, not a step).
 */
export function createRunActivity(options: {
  runtime: Pick<AgentRuntime, "on">;
  /** Values masked wherever they appear in a step (configured keys and tokens). */
  secrets?: readonly string[];
  now?: () => number;
}): RunActivity {
  const now = options.now ?? Date.now;
  const states = new Map<string, RunActivityState>();
  const listeners = new Set<(contextId: string, state: RunActivityState | undefined) => void>();
  const changed = (contextId: string) => {
    for (const listener of listeners) listener(contextId, states.get(contextId));
  };
  const seen = (event: RuntimeEvent) => {
    switch (event.type) {
      case "run-start":
        if (states.get(event.contextId)?.requestId === event.requestId) return;
        states.set(event.contextId, { requestId: event.requestId, since: now(), toolCalls: 0 });
        return changed(event.contextId);
      case "tool-call": {
        const state = states.get(event.contextId);
        if (!state) return;
        state.step = describeToolCall(event.toolName, event.summary, options.secrets);
        state.toolCalls += 1;
        return changed(event.contextId);
      }
      case "run-end":
      case "run-error":
        if (states.get(event.contextId)?.requestId !== event.requestId) return;
        states.delete(event.contextId);
        return changed(event.contextId);
    }
  };
  const off = options.runtime.on(seen);
  return {
    get: (contextId) => states.get(contextId),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      off();
      listeners.clear();
      states.clear();
    },
  };
}
