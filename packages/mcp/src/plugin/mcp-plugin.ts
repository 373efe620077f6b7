import { definePlugin, errorFields, packageVersion } from "@downcity/core";
import { mcpConfigSchema } from "../config/mcp-config.js";

const version = packageVersion(import.meta.url, "@downcity/mcp");

/** MCP as a plug-in: the servers of `mcp.servers` as agent tools (`mcp__<server>__<tool>`) and the `mcp` service. */
export const mcpPlugin = definePlugin({
  name: "mcp",
  version,
  config: mcpConfigSchema,
  async setup({ rootDir, config, logger }) {
    if (Object.keys(config.servers).length === 0) return {};
    // The MCP SDK is the heaviest import of a daemon: load it only for projects that use MCP.
    const [{ createMcpManager }, { createMcpService }] = await Promise.all([
      import("../manager/mcp-manager.js"),
      import("../service/mcp-service.js"),
    ]);
    const manager = createMcpManager({
      servers: config.servers,
      logger,
      clientInfo: { name: "downcity", version: version },
      baseDir: rootDir,
      timeoutMs: config.timeoutMs,
    });
    // Connects in the background: a slow or broken server never delays start-up; runs see the tools ready by then.
    void manager.connect().then(
      (statuses) => {
        const failed = statuses.filter((status) => status.status === "error");
        if (statuses.length > 0)
          logger.info(
            { servers: statuses.length, failed: failed.map((status) => status.name) },
            "mcp servers connected",
          );
      },
      (error: unknown) => logger.warn(errorFields(error), "mcp connect failed"),
    );
    return {
      services: [createMcpService(manager)],
      tools: [() => manager.tools()],
      close: () => manager.close(),
    };
  },
});
