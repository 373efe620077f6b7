import { createAgentRuntime, type ToolApprovalRequest } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { useTempDir } from "@downcity/testkit/vitest";
import { afterEach, describe, expect, it } from "vitest";
import { mcpConfigSchema } from "../config/mcp-config.js";
import { everythingStdio } from "../testing/everything-server.js";
import { createMcpManager, type McpManager } from "./mcp-manager.js";

const temp = useTempDir("dc-mcp-approval-");
const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

describe("mcp.servers.<name>.approval", () => {
  it("marks the named tools (or all of them with ask) as needing approval; bad lists name the field", async () => {
    const manager = createMcpManager({
      servers: { everything: { ...everythingStdio(), approval: { ask: ["echo", "get-*"] } } },
    });
    managers.push(manager);
    await manager.connect();
    const tools = manager.tools() as Record<string, { needsApproval?: unknown }>;
    expect(tools.mcp__everything__echo?.needsApproval).toBe(true);
    expect(tools["mcp__everything__get-structured-content"]?.needsApproval).toBe(true);
    expect(tools["mcp__everything__trigger-long-running-operation"]?.needsApproval).toBeUndefined();
    const info = manager.toolInfo("everything");
    expect(info.find((entry) => entry.tool === "echo")?.needsApproval).toBe(true);
    expect(info.find((entry) => entry.tool === "trigger-long-running-operation")?.needsApproval).toBe(false);

    const all = mcpConfigSchema.parse({ servers: { fs: { type: "stdio", command: "x", approval: "ask" } } });
    expect(all.servers.fs?.approval).toBe("ask");
    expect(
      mcpConfigSchema.parse({ servers: { fs: { type: "stdio", command: "x" } } }).servers.fs?.approval,
    ).toBe("never");
    const empty = mcpConfigSchema.safeParse({
      servers: { fs: { type: "stdio", command: "x", approval: { ask: [] } } },
    });
    expect(empty.error?.issues[0]?.path).toEqual(["servers", "fs", "approval", "ask"]);
    expect(() =>
      createMcpManager({ servers: { fs: { type: "stdio", command: "x", approval: "sometimes" as never } } }),
    ).toThrow(/mcp\.servers\.fs\.approval/);
  });

  it("a real MCP server's tool runs only once the runtime's approver allows it; a denial reaches the model", async () => {
    const manager = createMcpManager({ servers: { everything: { ...everythingStdio(), approval: "ask" } } });
    managers.push(manager);
    await manager.connect();
    const scripted = createScriptedModel([], {
      fallback: (call) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool") return `tool said: ${last.text}`;
        return { toolCalls: [{ toolName: "mcp__everything__echo", input: { message: last?.text ?? "" } }] };
      },
    });
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: () => manager.tools(),
    });
    const asked: ToolApprovalRequest[] = [];
    let answer: string | undefined;
    runtime.registerToolApprover(async (request) => {
      asked.push(request);
      return answer;
    });
    try {
      const allowed = await runtime.send({ contextId: "hook:1", text: "hello approvals" });
      expect(allowed.text).toContain("Echo: hello approvals");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        toolName: "mcp__everything__echo",
        input: { message: "hello approvals" },
        contextId: "hook:1",
      });
      answer = "Tool call refused: an approver (hook:boss) denied mcp__everything__echo.";
      const denied = await runtime.send({ contextId: "hook:1", text: "not this one" });
      expect(denied.text).toContain("denied mcp__everything__echo");
      expect(denied.text).not.toContain("Echo: not this one");
      expect(asked).toHaveLength(2);
    } finally {
      await runtime.close();
    }
  });
});
