import { z } from "zod";

/**
 * `approval` of an MCP server: whether its tool calls wait for a person's approval (the daemon's
 * `approvals` flow, as shell commands do). `"never"` (default), `"ask"` for every tool of the server,
 * or `{ "ask": [...] }` naming the server's own tool names (a trailing `*` matches a prefix).
 */
export const mcpApprovalSchema = z
  .union([
    z.enum(["never", "ask"]),
    z.strictObject({
      ask: z
        .array(
          z
            .string()
            .regex(/^[^*]+\*?$/, 'a tool name, or a prefix ending in one "*" (e.g. "write_*")')
            .describe("An MCP tool name as the server lists it"),
        )
        .min(1, 'name at least one tool, or use "ask" for all of them'),
    }),
  ])
  .default("never")
  .describe(
    'Tool calls that wait for an approver: "never", "ask" (every tool of this server) or { "ask": ["write_file", "delete_*"] }',
  );

/** The validated `approval` of a server. */
export type McpApproval = z.output<typeof mcpApprovalSchema>;

/** Whether a call of the server's tool `toolName` (its MCP name) needs approval. */
export function mcpToolNeedsApproval(approval: McpApproval, toolName: string): boolean {
  if (approval === "never") return false;
  if (approval === "ask") return true;
  return approval.ask.some((pattern) =>
    pattern.endsWith("*") ? toolName.startsWith(pattern.slice(0, -1)) : toolName === pattern,
  );
}
