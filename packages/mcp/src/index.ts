/**
 * The complete public surface of @downcity/mcp: a supervised set of MCP servers exposed as AI SDK
 * tools, and the `mcp` service that reports and reconnects them. Nothing else is public.
 */

export type { McpApproval } from "./config/mcp-approval.js";
export {
  type McpConfig,
  type McpServerConfig,
  mcpConfigSchema,
  mcpServerConfigSchema,
} from "./config/mcp-config.js";
export {
  createMcpManager,
  type McpManager,
  type McpManagerEvent,
  type McpManagerOptions,
  type McpToolInfo,
} from "./manager/mcp-manager.js";
export type { McpServerState, McpServerStatus } from "./manager/mcp-server-status.js";
export { mcpPlugin } from "./plugin/mcp-plugin.js";
export { createMcpService } from "./service/mcp-service.js";
export {
  assignToolNames,
  maxToolNameLength,
  mcpToolName,
  sanitizeToolNamePart,
  type ToolIdentity,
} from "./tools/assign-tool-names.js";
export type { McpContentBlock, McpToolResult } from "./tools/mcp-tool-result.js";
