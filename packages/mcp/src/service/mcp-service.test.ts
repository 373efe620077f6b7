import { createServiceRegistry, silentLogger } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { createMcpManager, type McpManager } from "../manager/mcp-manager.js";
import { everythingStdio } from "../testing/everything-server.js";
import { createMcpService } from "./mcp-service.js";

describe("createMcpService", () => {
  let manager: McpManager | undefined;
  afterEach(async () => {
    await manager?.close();
  });

  it("lists servers, their tools and reconnects one", async () => {
    manager = createMcpManager({
      servers: { everything: everythingStdio(), broken: { type: "stdio", command: "/nonexistent/server" } },
    });
    await manager.connect();
    const service = createMcpService(manager);
    expect(service.name).toBe("mcp");
    const context = { logger: silentLogger };

    const list = (await service.actions.list?.handler({}, context)) as {
      servers: Array<Record<string, unknown>>;
    };
    expect(list.servers).toEqual([
      expect.objectContaining({ name: "broken", status: "error", toolCount: 0 }),
      expect.objectContaining({ name: "everything", status: "ready", toolCount: expect.any(Number) }),
    ]);

    const tools = (await service.actions.tools?.handler({ server: "everything" }, context)) as {
      tools: Array<{ name: string; server: string; tool: string }>;
    };
    expect(tools.tools).toContainEqual(
      expect.objectContaining({ name: "mcp__everything__echo", server: "everything", tool: "echo" }),
    );
    await expect(
      Promise.resolve().then(() => service.actions.tools?.handler({ server: "nope" }, context)),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    const reconnected = (await service.actions.reconnect?.handler({ server: "everything" }, context)) as {
      server: { status: string };
    };
    expect(reconnected.server.status).toBe("ready");
    // The broken server is retried on its own: between two of its attempts it reads "error", during one "connecting".
    const status = (await service.status?.()) as {
      servers: number;
      ready: number;
      error: number;
      connecting: number;
    };
    expect(status).toMatchObject({ servers: 2, ready: 1 });
    expect(status.error + status.connecting).toBe(1);
  });

  it("validates action input through the service registry", async () => {
    manager = createMcpManager({ servers: {} });
    const registry = createServiceRegistry({ logger: silentLogger });
    registry.register(createMcpService(manager));
    await expect(registry.invoke("mcp", "reconnect", {})).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(registry.invoke("mcp", "list", {})).resolves.toEqual({ servers: [] });
  });
});
