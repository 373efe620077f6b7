import type { StepResult, ToolSet } from "ai";
import type { HistoryMessage } from "../history/history-message.js";
import type { RunAbortedError, RunAbortReason } from "./run-aborted-error.js";
import type { RunUsage } from "./run-usage.js";

/** The outcome of one agent run, as `send()` resolves it. */
export interface RunResult {
  contextId: string;
  requestId: string;
  /** What reached the user: the `chat_send` texts, else the final text. */
  text: string;
  /** The persisted assistant UIMessage of this run. */
  message: HistoryMessage;
  steps: number;
  /** Tokens the run's model calls used. */
  usage: RunUsage;
  /** Set when a cancel, a watchdog limit or shutdown stopped the run; `text` is then the notice. */
  aborted?: { reason: RunAbortReason; message: string };
}

/** A part of an assistant history message. */
export type AssistantPart = HistoryMessage["parts"][number];

/** What the model produced before the run ended: every finished step and the tokens used. */
export interface StreamedSteps {
  steps: Array<StepResult<ToolSet>>;
  usage: RunUsage;
}

/** How a run ended, before it is finished (recorded, delivered, announced). */
export type RunOutcome =
  | ({ status: "completed"; finalText: string } & StreamedSteps)
  /** A cancel, a limit or shutdown stopped it: why, and what the unfinished step had produced. */
  | ({ status: "aborted"; error: RunAbortedError; parts: AssistantPart[] } & StreamedSteps)
  | { status: "failed"; error: unknown };

/** A finished run as its waiting messages receive it: a result, or the error they are rejected with. */
export type RunSettlement = { ok: true; result: RunResult } | { ok: false; error: Error };
