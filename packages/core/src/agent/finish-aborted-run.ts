import type { StepResult, ToolSet } from "ai";
import type { HistoryMessage } from "../history/history-message.js";
import { errorFields, type Logger } from "../logger/logger.js";
import type { RunUsage } from "../run/run-usage.js";
import type { ContextHistory } from "../store/shared-history-store.js";
import type { RunResult } from "./agent-runtime.js";
import type { DeliverReply } from "./reply-routing.js";
import type { AgentLoopResult } from "./run-agent-loop.js";
import type { RuntimeEvent } from "./runtime-event.js";
import { stepsToParts } from "./steps-to-parts.js";

/**
 * Ends a run a cancel, a limit or shutdown stopped: the partial reply and a notice saying what
 * happened are kept in history as one assistant message marked `aborted`, the notice goes to the
 * chat like a reply, and `run-end` carries the reason.
 */
export async function finishAbortedRun(options: {
  contextId: string;
  requestId: string;
  steps: Array<StepResult<ToolSet>>;
  usage: RunUsage;
  aborted: NonNullable<AgentLoopResult["aborted"]>;
  store: ContextHistory;
  deliver: DeliverReply;
  emit: (event: RuntimeEvent) => void;
  logger: Logger;
  generateId: () => string;
  now: () => Date;
}): Promise<RunResult> {
  const { contextId, requestId, steps, usage, logger } = options;
  const { reason, message: notice } = options.aborted.error;
  const message: HistoryMessage = {
    id: options.generateId(),
    role: "assistant",
    parts: [...stepsToParts(steps), ...options.aborted.parts, { type: "text", text: notice }],
    metadata: { createdAt: options.now().toISOString(), contextId, requestId, aborted: reason },
  };
  await options.store.append(message);
  await options
    .deliver(notice, "final-text")
    .catch((error: unknown) => logger.warn(errorFields(error), "could not deliver the abort notice"));
  const aborted = { reason, message: notice };
  options.emit({ type: "run-end", contextId, requestId, text: notice, steps: steps.length, usage, aborted });
  logger.warn({ reason, steps: steps.length, ...usage }, "run aborted");
  return { contextId, requestId, text: notice, message, steps: steps.length, usage, aborted };
}
