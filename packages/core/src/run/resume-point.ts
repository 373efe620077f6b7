import type { ModelMessage } from "ai";
import type { HistoryMessage } from "../history/history-message.js";
import type { JournalRecord, ModelCallRecord } from "../store/run-journal.js";
import type { PendingRun } from "./run-scope.js";

/** The output a tool call gets when a restart cut it off: it may or may not have had its effect. */
export const interruptedToolOutput =
  "This tool call was interrupted by a restart of the agent; its outcome is unknown. It was not run again: check its effect before repeating it.";

/** Where a run that a crash, a restart or a failover cut off continues. */
export interface ResumePoint {
  requestId: string;
  /** The attempt about to start (the first was 1). */
  attempt: number;
  /** Steps the journal holds as finished: the model is not called for them again. */
  finishedSteps: number;
  /** What those steps (and an unfinished step's recorded tool calls) added to the prompt. */
  messages: ModelMessage[];
  /** Tool calls of the unfinished step, closed from the journal instead of being run again. */
  closedCalls: Array<{
    toolCallId: string;
    toolName: string;
    output: unknown;
    replayed: "recorded" | "interrupted";
  }>;
  /** Set when the last finished step was the answer (no tool calls): the run only has to finish. */
  finalText?: string;
  /** The journal as earlier attempts left it (their steps go into the run's history message, their reply keys are not handed out again). */
  records: JournalRecord[];
}

/**
 * The run to resume for `batch`: when every message of the batch was stored under one earlier
 * run (the durable inbox replays an event a crash kept from being marked done) and that run's
 * journal has no end (or ends `interrupted`), the run continues from its journal instead of
 * starting over. `stored` is the batch's stored copies (`storedUserMessages`), looked up once for
 * this and for the start's replay check.
 */
export async function findResumePoint(
  journal: { read(requestId: string): Promise<JournalRecord[] | undefined> },
  stored: readonly HistoryMessage[],
  batch: readonly PendingRun[],
): Promise<ResumePoint | undefined> {
  if (batch.some((pending) => !pending.historyMessage.metadata?.messageId)) return undefined;
  const earlier = new Set(stored.map((message) => message.metadata?.requestId));
  const [requestId] = earlier;
  if (earlier.size !== 1 || !requestId) return undefined;
  const records = await journal.read(requestId);
  // A run that ended is done; one a restart marked interrupted continues.
  const end = records?.findLast((record) => record.type === "end");
  if (!records || (end && end.outcome !== "interrupted")) return undefined;
  return resumePointOf(requestId, records);
}

/** Reads a resume point from a run's records. */
export function resumePointOf(requestId: string, records: readonly JournalRecord[]): ResumePoint {
  // The first attempt has no attempt record; each later one has one.
  const attempt = 2 + records.filter((record) => record.type === "attempt").length;
  const steps = records.filter((record) => record.type === "step");
  const messages = steps.flatMap((step) => step.messages as ModelMessage[]);
  const last = steps.at(-1);
  const point: ResumePoint = {
    requestId,
    attempt,
    finishedSteps: steps.length,
    messages,
    closedCalls: [],
    records: [...records],
  };
  const call = records.findLast(
    (record): record is ModelCallRecord => record.type === "model-call" && record.step === steps.length,
  );
  // Tool calls of the unfinished step that began (their start is durable before they run).
  const toolCalls = records.flatMap((record) =>
    record.type === "tool-start" && record.step === steps.length ? [record] : [],
  );
  if (toolCalls.length > 0) {
    // They are answered from the journal: a recorded result, else "interrupted, outcome unknown".
    const ended = new Map(
      records.flatMap((record) => (record.type === "tool-end" ? [[record.toolCallId, record] as const] : [])),
    );
    for (const toolCall of toolCalls) {
      const end = ended.get(toolCall.toolCallId);
      point.closedCalls.push({
        toolCallId: toolCall.toolCallId,
        toolName: toolCall.toolName,
        output: end ? (end.error !== undefined ? { error: end.error } : end.output) : interruptedToolOutput,
        replayed: end ? "recorded" : "interrupted",
      });
    }
    point.messages.push(...closingMessages(call, toolCalls, point.closedCalls));
    return point;
  }
  if (last && last.toolCallIds.length === 0) point.finalText = last.text;
  return point;
}

/** The assistant message of a recorded model call and the tool message answering its calls. */
function closingMessages(
  call: ModelCallRecord | undefined,
  toolCalls: Array<{ toolCallId: string; toolName: string; input: unknown }>,
  closed: ResumePoint["closedCalls"],
): ModelMessage[] {
  const text = (call?.response?.content ?? [])
    .filter((part): part is { type: "text"; text: string } => (part as { type?: string }).type === "text")
    .map((part) => part.text)
    .join("");
  return [
    {
      role: "assistant",
      content: [
        ...(text ? [{ type: "text" as const, text }] : []),
        ...toolCalls.map((toolCall) => ({
          type: "tool-call" as const,
          toolCallId: toolCall.toolCallId,
          toolName: toolCall.toolName,
          input: toolCall.input,
        })),
      ],
    },
    {
      role: "tool",
      content: closed.map((entry) => ({
        type: "tool-result" as const,
        toolCallId: entry.toolCallId,
        toolName: entry.toolName,
        output:
          typeof entry.output === "string"
            ? { type: "text" as const, value: entry.output }
            : { type: "json" as const, value: (entry.output ?? null) as never },
      })),
    },
  ];
}
