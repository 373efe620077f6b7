import type { NewJournalRecord, StepRecord, ToolEndRecord, ToolStartRecord } from "../store/run-journal.js";
import type { AssistantPart } from "./run-result.js";

/** A part of a recorded step's assistant message (the AI SDK's model message content). */
interface StepContentPart {
  type: string;
  text?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
}

/**
 * The parts of a run's assistant history message, from its journal: every finished step of every
 * attempt (the text the model wrote and each tool call with its recorded output or error), then
 * the tool calls of the step under way that started (their outcome if they ended, else
 * `unfinishedError`). So history shows every tool that ran, whether the run completed, was
 * stopped, failed or was resumed after a crash, and a context-window retry keeps the steps of the
 * stream it replaced.
 */
export function journalHistoryParts(
  records: readonly NewJournalRecord[],
  unfinishedError: string,
): AssistantPart[] {
  const starts = new Map<string, ToolStartRecord>();
  const ends = new Map<string, ToolEndRecord>();
  const steps: StepRecord[] = [];
  for (const record of records) {
    if (record.type === "tool-start") starts.set(record.toolCallId, record as ToolStartRecord);
    else if (record.type === "tool-end") ends.set(record.toolCallId, record as ToolEndRecord);
    else if (record.type === "step") steps.push(record as StepRecord);
  }
  const parts: AssistantPart[] = [];
  const shown = new Set<string>();
  for (const step of steps) {
    if (parts.length > 0) parts.push({ type: "step-start" });
    for (const part of assistantContent(step)) {
      if (part.type === "text" && part.text) parts.push({ type: "text", text: part.text });
      else if (part.type === "tool-call" && part.toolCallId && !shown.has(part.toolCallId)) {
        shown.add(part.toolCallId);
        const start = starts.get(part.toolCallId);
        parts.push(
          toolPart(
            { toolCallId: part.toolCallId, toolName: part.toolName ?? "", input: start?.input ?? part.input },
            ends.get(part.toolCallId),
            unfinishedError,
          ),
        );
      }
    }
  }
  // The step under way when the run ended: the calls it started (their starts are durable).
  const unfinished = [...starts.values()].filter((start) => !shown.has(start.toolCallId));
  if (unfinished.length > 0 && parts.length > 0) parts.push({ type: "step-start" });
  for (const start of unfinished) parts.push(toolPart(start, ends.get(start.toolCallId), unfinishedError));
  return parts;
}

/** The tool call ids a history message built by `journalHistoryParts` shows. */
export function shownToolCalls(parts: readonly AssistantPart[]): Set<string> {
  return new Set(parts.flatMap((part) => (part.type === "dynamic-tool" ? [part.toolCallId] : [])));
}

/** The content of a step's assistant message, in the order the model produced it. */
function assistantContent(step: StepRecord): StepContentPart[] {
  const assistant = (step.messages as Array<{ role?: string; content?: unknown }>).find(
    (message) => message.role === "assistant",
  );
  if (!assistant) return step.text ? [{ type: "text", text: step.text }] : [];
  if (typeof assistant.content === "string") return [{ type: "text", text: assistant.content }];
  return Array.isArray(assistant.content) ? (assistant.content as StepContentPart[]) : [];
}

function toolPart(
  call: { toolCallId: string; toolName: string; input: unknown },
  end: ToolEndRecord | undefined,
  unfinishedError: string,
): AssistantPart {
  const base = { type: "dynamic-tool" as const, toolName: call.toolName, toolCallId: call.toolCallId };
  if (end && end.error === undefined)
    return { ...base, state: "output-available", input: call.input, output: end.output };
  return { ...base, state: "output-error", input: call.input, errorText: end?.error ?? unfinishedError };
}
