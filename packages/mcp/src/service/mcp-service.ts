import { defineService, type ServiceDefinition } from "@downcity/core";
import { z } from "zod";
import type { McpManager } from "../manager/mcp-manager.js";

const listInput = z.strictObject({});
const toolsInput = z.strictObject({
  server: z.string().min(1).optional().describe("Only this server's tools"),
});
const reconnectInput = z.strictObject({
  server: z.string().min(1).describe("The server name from mcp.servers"),
});

/** The `mcp` service: `list` (servers, status, tool counts), `tools` (per server) and `reconnect`. */
export function createMcpService(manager: McpManager): ServiceDefinition {
  return defineService({
    name: "mcp",
    description: "MCP servers connected as agent tools",
    actions: {
      list: {
        description: "List configured MCP servers with their status and tool counts",
        input: listInput,
        handler: () => ({ servers: manager.status() }),
      },
      tools: {
        description: "List the agent tools each MCP server provides",
        input: toolsInput,
        handler: (input) => ({ tools: manager.toolInfo(input.server) }),
      },
      reconnect: {
        description: "Close and reconnect one MCP server",
        input: reconnectInput,
        handler: async (input) => ({ server: await manager.reconnect(input.server) }),
      },
    },
    status: () => {
      const servers = manager.status();
      const count = (state: string) => servers.filter((server) => server.status === state).length;
      return {
        servers: servers.length,
        ready: count("ready"),
        error: count("error"),
        connecting: count("connecting"),
        tools: servers.reduce((sum, server) => sum + (server.status === "ready" ? server.toolCount : 0), 0),
      };
    },
  });
}
