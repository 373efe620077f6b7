import { z } from "zod";
import { mcpApprovalSchema } from "./mcp-approval.js";

const mcpCommon = {
  enabled: z.boolean().default(true).describe("Set false to skip this server"),
  approval: mcpApprovalSchema,
};

/** One MCP server of `mcp.servers`: stdio child process, SSE, or Streamable HTTP (`http`). */
export const mcpServerConfigSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    ...mcpCommon,
  }),
  z.strictObject({
    type: z.literal("sse"),
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    ...mcpCommon,
  }),
  z.strictObject({
    type: z.literal("http"),
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
    ...mcpCommon,
  }),
]);

/** A server name becomes part of tool names (`mcp__<server>__<tool>`), hence the narrow pattern. */
export const mcpServerNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9_-]{1,32}$/,
    "server names use only A-Z, a-z, 0-9, _ and -, 1 to 32 characters (they become part of tool names)",
  );

/** The `mcp` section of `downcity.json`. */
export const mcpConfigSchema = z.strictObject({
  servers: z.record(mcpServerNameSchema, mcpServerConfigSchema).default({}),
  timeoutMs: z.number().int().min(100).default(15000).describe("Connect and call timeout per server"),
});

/** One validated MCP server entry. */
export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;
/** The validated `mcp` section. */
export type McpConfig = z.output<typeof mcpConfigSchema>;
