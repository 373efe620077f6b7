import type { Tool, ToolExecutionOptions } from "ai";
import type { McpToolResult } from "../tools/mcp-tool-result.js";

/** Executes an AI SDK tool the way a run would, for tests. */
export async function callTool(
  tool: Tool | undefined,
  input: unknown,
  abortSignal?: AbortSignal,
): Promise<McpToolResult> {
  if (!tool?.execute) throw new Error("tool missing");
  const options: ToolExecutionOptions = {
    toolCallId: "call-1",
    messages: [],
    ...(abortSignal ? { abortSignal } : {}),
  };
  return (await tool.execute(input, options)) as McpToolResult;
}

/** The text blocks of a tool result, joined. */
export const resultText = (result: McpToolResult): string =>
  result.content.map((block) => (block.type === "text" ? String(block.text) : "")).join("");
