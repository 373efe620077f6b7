import type { StepResult, ToolSet } from "ai";
import type { HistoryMessage } from "../history/history-message.js";

type Part = HistoryMessage["parts"][number];

/** Turns the steps of a run into the parts of one assistant UIMessage (text and tool calls with results). */
export function stepsToParts(steps: ReadonlyArray<StepResult<ToolSet>>): Part[] {
  const parts: Part[] = [];
  for (const step of steps) {
    if (parts.length > 0) parts.push({ type: "step-start" });
    const results = new Map<string, { output?: unknown; error?: unknown }>();
    for (const item of step.content) {
      if (item.type === "tool-result") results.set(item.toolCallId, { output: item.output });
      if (item.type === "tool-error") results.set(item.toolCallId, { error: item.error });
    }
    for (const item of step.content) {
      if (item.type === "text" && item.text) parts.push({ type: "text", text: item.text });
      if (item.type === "tool-call") {
        const result = results.get(item.toolCallId);
        if (result && "error" in result && result.error !== undefined) {
          parts.push({
            type: "dynamic-tool",
            toolName: item.toolName,
            toolCallId: item.toolCallId,
            state: "output-error",
            input: item.input,
            errorText: result.error instanceof Error ? result.error.message : String(result.error),
          });
        } else if (result) {
          parts.push({
            type: "dynamic-tool",
            toolName: item.toolName,
            toolCallId: item.toolCallId,
            state: "output-available",
            input: item.input,
            output: result.output,
          });
        }
      }
    }
  }
  return parts;
}
