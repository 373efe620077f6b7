import type { RunAbortReason } from "./run-aborted-error.js";
import type { RunUsage } from "./run-usage.js";

/** Everything a host can observe about runs, as a discriminated union (`<noun>-<action>`). */
export type RuntimeEvent =
  /** Progress a long-running tool reports for its run (e.g. `shell_sleep` ticks). */
  | {
      type: "tool-progress";
      contextId: string;
      requestId: string;
      tool: string;
      message: string;
      data?: Record<string, unknown>;
    }
  /** A message entered a context's queue (a waiting tool such as a sleep can end early on it). */
  | { type: "message-queued"; contextId: string; messageId?: string; origin: "user" | "internal" }
  | {
      type: "run-start";
      contextId: string;
      requestId: string;
      messageIds: string[];
      /** What the run's reply (outbox) keys are named after: its trigger message's id, else the requestId. */
      replyKeyName: string;
    }
  | { type: "message-merged"; contextId: string; requestId: string; messageIds: string[]; step: number }
  | { type: "text-delta"; contextId: string; requestId: string; delta: string }
  /** The model called a tool; `summary` is a short form of its input (a command, a path). */
  | {
      type: "tool-call";
      contextId: string;
      requestId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      summary: string;
    }
  /** A tool call finished; `summary` is a short form of its outcome (`exit 0`, an error message). */
  | {
      type: "tool-result";
      contextId: string;
      requestId: string;
      step: number;
      toolCallId: string;
      toolName: string;
      ok: boolean;
      durationMs: number;
      summary?: string;
    }
  /** One model call (a step of the tool loop) finished, with its token usage. */
  | {
      type: "step";
      contextId: string;
      requestId: string;
      step: number;
      provider: string;
      model: string;
      finishReason: string;
      durationMs: number;
      usage: RunUsage;
    }
  | {
      type: "chat-message";
      contextId: string;
      requestId: string;
      channel?: string;
      chatId?: string;
      text: string;
      via: "chat_send" | "final-text";
    }
  /** A run ended; `aborted` is set when a cancel, a watchdog limit or shutdown stopped it. */
  | {
      type: "run-end";
      contextId: string;
      requestId: string;
      text: string;
      steps: number;
      usage: RunUsage;
      aborted?: { reason: RunAbortReason; message: string };
    }
  | { type: "run-error"; contextId: string; requestId: string; code: string; message: string }
  | { type: "context-compacted"; contextId: string; archiveId: string; archivedCount: number };

/** Receives runtime events; must not throw (errors are logged and ignored). */
export type RuntimeEventListener = (event: RuntimeEvent) => void;
