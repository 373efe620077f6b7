import { errorFields } from "@downcity/core";
import { daemonVersion } from "../version.js";
import type { Feature } from "./feature.js";

/** MCP: the servers of `mcp.servers` as agent tools (`mcp__<server>__<tool>`) and the `mcp` service. */
export const mcpFeature: Feature = {
  name: "mcp",
  async setup({ rootDir, config, logger }) {
    const servers = config.mcp?.servers ?? {};
    // The MCP SDK is the heaviest import of the daemon: load it only for projects that use MCP.
    if (Object.keys(servers).length === 0) return {};
    const { createMcpManager, createMcpService } = await import("@downcity/mcp");
    const manager = createMcpManager({
      servers,
      logger,
      clientInfo: { name: "downcity", version: daemonVersion() },
      baseDir: rootDir,
      ...(config.mcp?.timeoutMs ? { timeoutMs: config.mcp.timeoutMs } : {}),
    });
    // Connects in the background: a slow or broken server never delays the daemon; each run sees the tools ready by then.
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
};
