import type { HistoryMessage } from "../history/history-message.js";
import type { JournalRecord } from "../store/run-journal.js";
import { journalHistoryParts } from "./journal-history.js";
import { interruptedToolOutput } from "./resume-point.js";

/** The history note after the steps of a run a restart cut off for good. */
export const interruptedRunNote =
  "This run was interrupted by a restart of the agent before it answered; the tool calls above did run.";

/**
 * The assistant history message of a run a crash cut off that nothing will resume: it came from no
 * channel event (a console message, a task), so no inbox replays it. It holds the run's steps and
 * started tool calls from its journal, marked `metadata.interrupted`. Undefined when the run will
 * be resumed (a channel event started it: its replay writes the history) or when it ran nothing.
 */
export function interruptedRunMessage(
  records: readonly JournalRecord[],
  options: { id: string; now: Date },
): HistoryMessage | undefined {
  const start = records.find((record) => record.type === "run");
  if (!start || start.eventIds.length > 0) return undefined;
  const steps = journalHistoryParts(records, interruptedToolOutput);
  if (steps.length === 0) return undefined;
  return {
    id: options.id,
    role: "assistant",
    parts: [...steps, { type: "step-start" }, { type: "text", text: interruptedRunNote }],
    metadata: {
      createdAt: options.now.toISOString(),
      contextId: start.contextId,
      requestId: start.requestId,
      interrupted: true,
    },
  };
}
