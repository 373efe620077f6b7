import { fileURLToPath } from "node:url";
import { createScriptedModel } from "@downcity/core/scripted";
import { mcpPlugin } from "@downcity/mcp";
import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { useBuiltinPluginBed } from "./builtin-plugin-test-bed.js";

// A real stdio MCP server from @downcity/mcp's fixtures (it resolves the SDK from that package).
const growingServer = fileURLToPath(
  new URL("../../../../packages/mcp/test/fixtures/growing-server.mjs", import.meta.url),
);

describe("built-in mcp plug-in", () => {
  const bed = useBuiltinPluginBed("dc-mcp-feature-");

  it("gives the agent the tools of downcity.json's mcp servers and the mcp service", async () => {
    const { rootDir, config } = await bed.project(
      {
        mcp: {
          servers: {
            growing: { type: "stdio", command: "${NODE_BIN}", args: [growingServer] },
            broken: { type: "stdio", command: "/nonexistent/mcp-server" },
          },
        },
      },
      { ...process.env, NODE_BIN: process.execPath },
    );
    let offered: string[] = [];
    const model = createScriptedModel([
      (call) => {
        offered = call.tools;
        return { toolCalls: [{ toolName: "mcp__growing__add-tool", input: {} }] };
      },
      (call) => ({ text: `done: ${call.messages.at(-1)?.text ?? ""}` }),
    ]);
    const runtime = bed.runtime({ rootDir, model: model.model });

    const started = Date.now();
    const { registry, host: setup } = await bed.setup({ rootDir, config, runtime, plugin: mcpPlugin });
    // Setup does not wait for servers to connect.
    expect(Date.now() - started).toBeLessThan(1000);
    expect(setup.status()).toEqual([expect.objectContaining({ name: "mcp", state: "loaded" })]);

    type Server = { name: string; status: string };
    const servers = await until(
      async () => {
        const listed = ((await registry.invoke("mcp", "list", {})) as { servers: Server[] }).servers;
        return (
          listed.every((server) => server.status !== "connecting" && server.status !== "closed") && listed
        );
      },
      "every mcp server to settle",
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    expect(servers).toEqual([
      expect.objectContaining({ name: "broken", status: "error" }),
      expect.objectContaining({ name: "growing", status: "ready" }),
    ]);

    const result = await runtime.send({ contextId: "test:mcp", text: "add a tool" });
    expect(offered).toContain("mcp__growing__add-tool");
    expect(result.text).toContain("registered added-1");

    await setup.close();
    const after = (await registry.invoke("mcp", "list", {})) as { servers: Array<{ status: string }> };
    expect(after.servers.map((server) => server.status)).toEqual(["closed", "closed"]);
  });
});
