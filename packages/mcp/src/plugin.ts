/** `@downcity/mcp/plugin`: the MCP plug-in alone; the MCP SDK loads only when a server is configured. */
export { mcpPlugin } from "./plugin/mcp-plugin.js";
