import { dynamicTool, jsonSchema, type Tool } from "ai";
import { type McpToolResult, mcpResultToModelOutput } from "./mcp-tool-result.js";

/** The parts of an MCP tool definition (`tools/list`) the AI SDK tool is built from. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, unknown>; [key: string]: unknown };
}

/** Calls one tool on its server; never throws, failures come back as `isError` results. */
export type McpToolCaller = (
  input: Record<string, unknown>,
  abortSignal?: AbortSignal,
) => Promise<McpToolResult>;

/** Wraps one MCP tool as an AI SDK tool whose input schema is the server's JSON Schema. */
export function createMcpTool(options: {
  server: string;
  definition: McpToolDefinition;
  call: McpToolCaller;
  /** Each call waits for a person's approval (the server's `approval` setting). */
  needsApproval?: boolean;
}): Tool {
  const { definition } = options;
  const { $schema: _dialect, ...schema } = definition.inputSchema;
  const description =
    definition.description ??
    definition.title ??
    `Tool "${definition.name}" of MCP server "${options.server}".`;
  return dynamicTool({
    description,
    inputSchema: jsonSchema({ ...schema, type: "object", properties: schema.properties ?? {} } as never),
    execute: (input, { abortSignal }) =>
      options.call(input && typeof input === "object" ? (input as Record<string, unknown>) : {}, abortSignal),
    toModelOutput: ({ output }) => mcpResultToModelOutput(output as McpToolResult),
    ...(options.needsApproval ? { needsApproval: true } : {}),
  });
}
