import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, resultText } from "../testing/call-tool.js";
import { startEverythingHttp } from "../testing/everything-server.js";
import { createMcpManager, type McpManager } from "./mcp-manager.js";

const run = callTool;
const text = resultText;

describe("createMcpManager over Streamable HTTP (server-everything on 127.0.0.1)", () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  let manager: McpManager;

  beforeAll(async () => {
    server = await startEverythingHttp();
    manager = createMcpManager({
      servers: {
        remote: { type: "http", url: server.url, headers: { "x-test": "1" } },
        unreachable: { type: "http", url: "http://127.0.0.1:9/mcp" },
      },
      timeoutMs: 5000,
    });
    await manager.connect();
  });

  afterAll(async () => {
    await manager?.close();
    await server?.stop();
  });

  it("connects, lists tools and reports the unreachable server as error", () => {
    const byName = Object.fromEntries(manager.status().map((status) => [status.name, status]));
    expect(byName.remote).toMatchObject({ status: "ready", type: "http" });
    expect(byName.remote?.pid).toBeUndefined();
    expect(byName.unreachable).toMatchObject({
      status: "error",
      error: expect.stringMatching(/fetch failed|ECONNREFUSED/),
    });
    const names = Object.keys(manager.tools());
    expect(names).toContain("mcp__remote__echo");
    expect(names.some((name) => name.startsWith("mcp__unreachable__"))).toBe(false);
  });

  it("calls echo and a structured-content tool", async () => {
    const tools = manager.tools();
    expect(text(await run(tools.mcp__remote__echo, { message: "over http" }))).toBe("Echo: over http");
    const structured = await run(tools["mcp__remote__get-structured-content"], { location: "New York" });
    expect(structured.structuredContent).toEqual({ temperature: 33, conditions: "Cloudy", humidity: 82 });
    const sum = await run(tools["mcp__remote__get-sum"], { a: 2, b: 40 });
    expect(text(sum)).toMatch(/42/);
  });

  it("aborts a long-running call mid-way and stays usable", async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const result = await run(
      manager.tools()["mcp__remote__trigger-long-running-operation"],
      { duration: 10, steps: 5 },
      controller.signal,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(result.isError).toBe(true);
    expect(text(await run(manager.tools().mcp__remote__echo, { message: "after abort" }))).toBe(
      "Echo: after abort",
    );
  });

  it("reconnects an HTTP server on request", async () => {
    const status = await manager.reconnect("remote");
    expect(status.status).toBe("ready");
    expect(text(await run(manager.tools().mcp__remote__echo, { message: "again" }))).toBe("Echo: again");
  });
});

describe("HTTP servers that go away", () => {
  it("returns an error result when the HTTP server dies, then reconnects once it is back", async () => {
    let server = await startEverythingHttp();
    const manager = createMcpManager({
      servers: { remote: { type: "http", url: server.url } },
      timeoutMs: 2000,
      reconnect: { initialDelayMs: 100, maxDelayMs: 300 },
    });
    try {
      await manager.connect();
      const tools = manager.tools();
      await server.stop();
      const failed = await run(tools.mcp__remote__echo, { message: "anyone?" });
      expect(failed.isError).toBe(true);
      await until(() => manager.status()[0]?.status !== "ready", "the server to be marked lost", 5000);
      expect(manager.status()[0]?.error).toBeTruthy();

      server = await startEverythingHttp({ port: server.port });
      await until(() => manager.status()[0]?.status === "ready", "reconnect", 10000);
      expect(text(await run(tools.mcp__remote__echo, { message: "back" }))).toBe("Echo: back");
    } finally {
      await manager.close();
      await server.stop();
    }
  });
});

describe("createMcpManager over legacy SSE (server-everything on 127.0.0.1)", () => {
  it("connects and calls echo", async () => {
    const server = await startEverythingHttp({ transport: "sse" });
    const manager = createMcpManager({ servers: { legacy: { type: "sse", url: server.url } } });
    try {
      const [status] = await manager.connect();
      expect(status).toMatchObject({ status: "ready", type: "sse" });
      expect(text(await run(manager.tools().mcp__legacy__echo, { message: "sse" }))).toBe("Echo: sse");
    } finally {
      await manager.close();
      await server.stop();
    }
  });
});
