import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { callTool, resultText } from "../testing/call-tool.js";
import { childPids, everythingStdio, growingServerEntry } from "../testing/everything-server.js";
import { createMcpManager, type McpManager, type McpManagerEvent } from "./mcp-manager.js";

const managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()));
});

function track(manager: McpManager): McpManager {
  managers.push(manager);
  return manager;
}

const run = callTool;
const text = resultText;

describe("createMcpManager over stdio (server-everything)", () => {
  it("lists tools with the server's JSON Schema and calls echo, structured and long content", async () => {
    const manager = track(createMcpManager({ servers: { everything: everythingStdio() } }));
    const [status] = await manager.connect();
    expect(status).toMatchObject({ name: "everything", type: "stdio", status: "ready" });
    expect(status?.pid).toBeGreaterThan(0);

    const tools = manager.tools();
    expect(Object.keys(tools)).toEqual(
      expect.arrayContaining([
        "mcp__everything__echo",
        "mcp__everything__get-structured-content",
        "mcp__everything__trigger-long-running-operation",
      ]),
    );
    // Task-only tools cannot be called with tools/call, so they are not offered.
    expect(tools["mcp__everything__simulate-research-query"]).toBeUndefined();
    const echo = tools.mcp__everything__echo;
    expect(echo?.description).toBe("Echoes back the input string");
    const schema = await (echo?.inputSchema as { jsonSchema: unknown } | undefined)?.jsonSchema;
    expect(schema).toMatchObject({
      type: "object",
      properties: { message: { type: "string" } },
      required: ["message"],
    });

    expect(text(await run(echo, { message: "hello" }))).toBe("Echo: hello");

    const long = "x".repeat(200_000);
    const longResult = await run(echo, { message: long });
    expect(text(longResult)).toHaveLength(long.length + "Echo: ".length);

    const structured = await run(tools["mcp__everything__get-structured-content"], { location: "Chicago" });
    expect(structured.isError).toBeUndefined();
    expect(structured.structuredContent).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
    expect(JSON.parse(text(structured))).toEqual(structured.structuredContent);

    const image = await run(tools["mcp__everything__get-tiny-image"], {});
    expect(image.content.some((block) => block.type === "image")).toBe(true);
    const modelOutput = await tools["mcp__everything__get-tiny-image"]?.toModelOutput?.({
      toolCallId: "call-1",
      input: {},
      output: image,
    });
    expect(modelOutput?.type).toBe("content");
  });

  it("turns a tool error into an isError result the model can read", async () => {
    const manager = track(createMcpManager({ servers: { everything: everythingStdio() } }));
    await manager.connect();
    const tool = manager.tools()["mcp__everything__get-structured-content"];
    const result = await run(tool, { location: "Atlantis" });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/location|Invalid/i);
    const output = await tool?.toModelOutput?.({ toolCallId: "c", input: {}, output: result });
    expect(output?.type).toBe("error-text");
  });

  it("aborts a long-running tool mid-call and times out a call past callTimeoutMs", async () => {
    const manager = track(
      createMcpManager({ servers: { everything: everythingStdio() }, callTimeoutMs: 400 }),
    );
    await manager.connect();
    const long = manager.tools()["mcp__everything__trigger-long-running-operation"];

    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 200);
    const aborted = await run(long, { duration: 10, steps: 5 }, controller.signal);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(aborted.isError).toBe(true);
    expect(text(aborted)).toMatch(/aborted/);

    const timedOut = await run(long, { duration: 10, steps: 5 });
    expect(timedOut.isError).toBe(true);
    expect(text(timedOut)).toMatch(/timed out after 400 ms/);

    // The server is still usable afterwards.
    expect(text(await run(manager.tools().mcp__everything__echo, { message: "still here" }))).toBe(
      "Echo: still here",
    );
  });

  it("refreshes the tool list on notifications/tools/list_changed", async () => {
    const manager = track(
      createMcpManager({
        servers: {
          everything: everythingStdio(),
          growing: { type: "stdio", command: process.execPath, args: [growingServerEntry] },
        },
      }),
    );
    const events: McpManagerEvent[] = [];
    manager.on((event) => events.push(event));
    await manager.connect();
    // server-everything registers its capability-dependent tools right after initialize and announces them.
    await until(
      () =>
        events.some(
          (event) =>
            event.type === "tools-change" && event.server === "everything" && event.reason === "list-changed",
        ),
      "server-everything's list_changed refresh",
      5000,
    );

    expect(manager.tools()["mcp__growing__added-1"]).toBeUndefined();
    const before = manager.tools();
    expect(text(await run(before["mcp__growing__add-tool"], {}))).toBe("registered added-1");
    await until(() => manager.tools()["mcp__growing__added-1"] !== undefined, "added-1 to appear", 5000);
    expect(events).toContainEqual({
      type: "tools-change",
      server: "growing",
      reason: "list-changed",
      toolCount: 2,
    });
    expect(text(await run(manager.tools()["mcp__growing__added-1"], { value: "v" }))).toBe("added-1: v");
    expect(manager.toolInfo("growing").map((info) => info.name)).toEqual([
      "mcp__growing__add-tool",
      "mcp__growing__added-1",
    ]);
  });

  it("keeps good servers working next to a bad command and an unreachable URL", async () => {
    const manager = track(
      createMcpManager({
        servers: {
          good: everythingStdio(),
          missing: { type: "stdio", command: "/nonexistent/mcp-server-binary" },
          crashing: {
            type: "stdio",
            command: process.execPath,
            args: ["-e", "console.error('boom: bad config'); process.exit(3)"],
          },
          offline: { type: "http", url: "http://127.0.0.1:9/mcp" },
          legacy: { type: "sse", url: "http://127.0.0.1:9/sse" },
          off: { type: "stdio", command: "/nonexistent", enabled: false },
        },
        timeoutMs: 5000,
        // A failed server retries after initialDelayMs; on a busy machine the good server's start can
        // outlast the default 500 ms, and the test would read a retry in progress instead of the error.
        reconnect: { initialDelayMs: 60_000 },
      }),
    );
    const started = Date.now();
    await manager.connect();
    expect(Date.now() - started).toBeLessThan(5000);
    const byName = Object.fromEntries(manager.status().map((status) => [status.name, status]));
    expect(byName.good?.status).toBe("ready");
    expect(byName.missing).toMatchObject({ status: "error", error: expect.stringMatching(/ENOENT/) });
    expect(byName.crashing).toMatchObject({
      status: "error",
      error: expect.stringMatching(/boom: bad config/),
    });
    expect(byName.offline).toMatchObject({ status: "error", error: expect.any(String) });
    expect(byName.legacy).toMatchObject({ status: "error", error: expect.any(String) });
    expect(byName.off).toMatchObject({ status: "disabled", toolCount: 0 });

    const names = Object.keys(manager.tools());
    expect(names.length).toBeGreaterThan(5);
    expect(names.every((name) => name.startsWith("mcp__good__"))).toBe(true);
    expect(text(await run(manager.tools().mcp__good__echo, { message: "ok" }))).toBe("Echo: ok");
  });

  it("returns an error result when the stdio server dies mid-call, reconnects, and later calls work", async () => {
    const manager = track(
      createMcpManager({
        servers: { everything: everythingStdio() },
        reconnect: { initialDelayMs: 100, maxDelayMs: 1000 },
      }),
    );
    const events: McpManagerEvent[] = [];
    manager.on((event) => events.push(event));
    const [first] = await manager.connect();
    const pid = first?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);

    const tools = manager.tools();
    const pending = run(tools["mcp__everything__trigger-long-running-operation"], { duration: 10, steps: 5 });
    setTimeout(() => process.kill(pid, "SIGKILL"), 200);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/disconnected|Connection closed/);

    await until(
      () => manager.status()[0]?.status === "ready" && manager.status()[0]?.pid !== pid,
      "reconnect",
      10000,
    );
    expect(events.some((event) => event.type === "status-change" && event.status.status === "error")).toBe(
      true,
    );
    // The tool object the run already holds keeps working against the new connection.
    expect(text(await run(tools.mcp__everything__echo, { message: "back" }))).toBe("Echo: back");
    expect(manager.status()[0]?.retries).toBe(1);
  });

  it("backs off a server that crashes right after every connect", async () => {
    const before = new Set(childPids());
    const manager = track(
      createMcpManager({
        servers: {
          flaky: {
            type: "stdio",
            command: process.execPath,
            args: [growingServerEntry],
            env: { EXIT_AFTER_LIST_MS: "50" },
          },
        },
        reconnect: { initialDelayMs: 50, maxDelayMs: 400 },
      }),
    );
    const delays: number[] = [];
    manager.on((event) => {
      if (event.type === "status-change" && event.status.nextRetryAt) {
        delays.push(Date.parse(event.status.nextRetryAt) - Date.now());
      }
    });
    await manager.connect();
    await until(() => (manager.status()[0]?.retries ?? 0) >= 4, "four reconnects", 10000);
    // 50, 100, 200, 400 ms: the backoff grows instead of resetting after each short-lived connection.
    expect(delays.length).toBeGreaterThanOrEqual(4);
    expect(delays[3]).toBeGreaterThan(delays[0] ?? 0);
    await manager.close();
    expect(childPids().filter((pid) => !before.has(pid))).toEqual([]);
  });

  it("retries a server that fails its first connect with backoff until it comes up", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mcp-late-"));
    const entry = join(dir, "late-server.mjs");
    const manager = track(
      createMcpManager({
        servers: { late: { type: "stdio", command: process.execPath, args: [entry] } },
        reconnect: { initialDelayMs: 100, maxDelayMs: 400 },
      }),
    );
    // The script does not exist yet: node exits at once, so the first connect fails.
    const [first] = await manager.connect();
    expect(first).toMatchObject({ status: "error", error: expect.stringMatching(/Connection closed/) });
    expect(first?.nextRetryAt).toBeDefined();
    await until(() => (manager.status()[0]?.retries ?? 0) >= 2, "two automatic retries", 5000);
    // The server appears (installed, typo fixed): the next automatic retry connects without reconnect().
    await writeFile(entry, `await import(${JSON.stringify(pathToFileURL(growingServerEntry).href)});\n`);
    await until(() => manager.status()[0]?.status === "ready", "automatic connect", 5000);
    expect(manager.status()[0]).not.toHaveProperty("nextRetryAt");
    expect(Object.keys(manager.tools())).toEqual(["mcp__late__add-tool"]);
    // A manual reconnect starts over: the retry count is reset.
    expect((await manager.reconnect("late")).retries).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("reconnect(name) of a server in error tries at once and keeps retrying after another failure", async () => {
    const manager = track(
      createMcpManager({
        servers: { missing: { type: "stdio", command: "/nonexistent/mcp-server-binary" } },
        reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
      }),
    );
    const [first] = await manager.connect();
    expect(first).toMatchObject({ status: "error", retries: 1, nextRetryAt: expect.any(String) });
    const started = Date.now();
    const again = await manager.reconnect("missing");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(again).toMatchObject({ status: "error", error: expect.stringMatching(/ENOENT/), retries: 1 });
    expect(again.nextRetryAt).toBeDefined();
  });

  it("reconnect(name) replaces the connection and rejects unknown names", async () => {
    const manager = track(createMcpManager({ servers: { everything: everythingStdio() } }));
    const [first] = await manager.connect();
    const second = await manager.reconnect("everything");
    expect(second.status).toBe("ready");
    expect(second.pid).not.toBe(first?.pid);
    await expect(manager.reconnect("nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("leaves no child process behind after close()", async () => {
    const before = new Set(childPids());
    const manager = createMcpManager({
      servers: { one: everythingStdio(), two: everythingStdio(), three: everythingStdio() },
    });
    const statuses = await manager.connect();
    const pids = statuses.map((status) => status.pid ?? 0);
    expect(pids.every((pid) => pid > 0)).toBe(true);
    expect(childPids()).toEqual(expect.arrayContaining(pids));
    // A call in flight while closing ends with an error result, not a hang.
    const pending = run(manager.tools()["mcp__one__trigger-long-running-operation"], {
      duration: 10,
      steps: 5,
    });
    const started = Date.now();
    await manager.close();
    expect(Date.now() - started).toBeLessThan(4000);
    expect((await pending).isError).toBe(true);
    expect(childPids().filter((pid) => !before.has(pid))).toEqual([]);
    expect(manager.status().every((status) => status.status === "closed")).toBe(true);
    expect(manager.tools()).toEqual({});
    await expect(manager.connect()).rejects.toMatchObject({ code: "RUNTIME_CLOSED" });
  });

  it("rejects an invalid server config naming the field", () => {
    expect(() => createMcpManager({ servers: { bad: { type: "http", url: "not a url" } as never } })).toThrow(
      /mcp\.servers\.bad\.url/,
    );
    expect(() => createMcpManager({ servers: { "bad name": { type: "stdio", command: "x" } } })).toThrow(
      /mcp\.servers/,
    );
  });
});
