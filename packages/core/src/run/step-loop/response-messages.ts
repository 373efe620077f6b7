import type { AssistantModelMessage, ContentPart, ToolModelMessage, ToolSet } from "ai";
import { errorMessageOf } from "./tool-json.js";

type Part = ContentPart<ToolSet>;
type AssistantContent = Exclude<AssistantModelMessage["content"], string>;
type ToolResultOutput = Extract<ToolModelMessage["content"][number], { type: "tool-result" }>["output"];

/**
 * The messages a finished step adds to the next step's prompt (and to history): the assistant's
 * text, reasoning, files and tool calls, then one tool message with the results of the tools run
 * here, in the order of their calls. The same conversion the AI SDK applies to its own steps, so a
 * tool's `toModelOutput` and error outputs reach the model alike.
 */
export async function toResponseMessages(
  content: readonly Part[],
  tools: ToolSet | undefined,
): Promise<Array<AssistantModelMessage | ToolModelMessage>> {
  const assistant: AssistantContent = [];
  const results: Array<{ order: number; part: ToolModelMessage["content"][number] }> = [];
  const callOrder = new Map<string, number>();
  for (const part of content) {
    const providerOptions = "providerMetadata" in part ? part.providerMetadata : undefined;
    switch (part.type) {
      case "text":
        if (part.text.length > 0) assistant.push({ type: "text", text: part.text, providerOptions });
        break;
      case "reasoning":
        assistant.push({ type: "reasoning", text: part.text, providerOptions });
        break;
      case "file":
        assistant.push({
          type: "file",
          data: part.file.base64,
          mediaType: part.file.mediaType,
          providerOptions,
        });
        break;
      case "tool-call":
        if (!callOrder.has(part.toolCallId)) callOrder.set(part.toolCallId, callOrder.size);
        assistant.push({
          type: "tool-call",
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          // An invalid call's raw text is not an input the provider accepts back.
          input: part.invalid && typeof part.input !== "object" ? {} : part.input,
          providerExecuted: part.providerExecuted,
          providerOptions,
        });
        break;
      case "tool-result":
      case "tool-error": {
        const providerExecuted = part.providerExecuted === true;
        const output = await toolModelOutput(part, tools, providerExecuted);
        const result = {
          type: "tool-result" as const,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output,
        };
        // A provider-executed tool's result belongs to the assistant's message, the others to the tool message.
        if (providerExecuted) assistant.push({ ...result, providerOptions });
        else {
          const order = callOrder.get(part.toolCallId) ?? Number.MAX_SAFE_INTEGER;
          results.push({
            order,
            part: { ...result, ...(providerOptions != null ? { providerOptions } : {}) },
          });
        }
        break;
      }
    }
  }
  const messages: Array<AssistantModelMessage | ToolModelMessage> = [];
  if (assistant.length > 0) messages.push({ role: "assistant", content: assistant });
  if (results.length > 0) {
    // Array sort is stable: results of calls this step did not see keep their arrival order, last.
    results.sort((a, b) => a.order - b.order);
    messages.push({ role: "tool", content: results.map((entry) => entry.part) });
  }
  return messages;
}

/**
 * What the model is told a tool returned: the tool's own `toModelOutput`, else text or JSON; an
 * error as its message (as JSON when the provider ran the tool).
 */
async function toolModelOutput(
  part: Extract<Part, { type: "tool-result" | "tool-error" }>,
  tools: ToolSet | undefined,
  providerExecuted: boolean,
): Promise<ToolResultOutput> {
  if (part.type === "tool-error") {
    return providerExecuted
      ? { type: "error-json", value: jsonValue(part.error) }
      : { type: "error-text", value: errorMessageOf(part.error) };
  }
  const tool = tools?.[part.toolName];
  if (tool?.toModelOutput) {
    return await tool.toModelOutput({ toolCallId: part.toolCallId, input: part.input, output: part.output });
  }
  return typeof part.output === "string"
    ? { type: "text", value: part.output }
    : { type: "json", value: jsonValue(part.output) };
}

function jsonValue(value: unknown) {
  return (value === undefined ? null : value) as Extract<ToolResultOutput, { type: "json" }>["value"];
}
