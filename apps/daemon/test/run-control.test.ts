import { readdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { contextDir, createHistoryStore, type RuntimeEvent } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { isAlive, until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDaemonClient, ensureToken, initProject } from "../src/index.js";
import { runDaemon } from "../src/server.js";
import { readDaemonLog } from "./daemon-log.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { createTempWorld } from "./temp-project.js";

/** A command whose real work runs in a grandchild (so killing only the shell would orphan it). */
const grandchild = (seconds: number, pidFile: string) => `sleep ${seconds} & echo $! > ${pidFile}; wait`;

async function readPid(rootDir: string, file: string): Promise<number | undefined> {
  const text = await readFile(join(rootDir, file), "utf8").catch(() => "");
  return text.trim() ? Number(text.trim()) : undefined;
}

/** Shell sessions as their snapshot files record them. */
async function snapshots(
  rootDir: string,
): Promise<Array<{ mode: string; status: string; pid: number | null }>> {
  const dir = join(rootDir, ".downcity", "shell");
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = [];
  for (const name of names) {
    const text = await readFile(join(dir, name, "snapshot.json"), "utf8").catch(() => "");
    if (text) found.push(JSON.parse(text));
  }
  return found;
}

describe("run control through the daemon", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  beforeAll(async () => {
    world = await createTempWorld("dc-run-control-");
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it("cancels a run over HTTP: the exec's processes die, the lane is free, SSE showed the tool call", async () => {
    const rootDir = world.project("cancel");
    await initProject(rootDir);
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "shell_exec", input: { command: grandchild(47, "exec.pid") } }] },
      "next reply",
    ]);
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, scripted.model);
    try {
      const events: RuntimeEvent[] = [];
      const stream = new AbortController();
      let ready: () => void = () => {};
      const subscribed = new Promise<void>((resolve) => {
        ready = resolve;
      });
      const listening = (async () => {
        for await (const event of client.chatEvents("cli:main", { signal: stream.signal })) {
          if (event.type === "ready") ready();
          else events.push(event);
        }
      })();
      await subscribed;
      const reply = client.chatSend({ contextId: "cli:main", text: "sleep a while" });
      const pid = await until(() => readPid(rootDir, "exec.pid"), "the exec's grandchild pid");
      expect(isAlive(pid)).toBe(true);
      await expect(client.chatCancel({} as { contextId: string })).rejects.toMatchObject({
        code: "INVALID_INPUT",
      });
      const started = Date.now();
      const { cancelled } = await client.chatCancel({ contextId: "cli:main" });
      expect(Date.now() - started).toBeLessThan(1500);
      expect(cancelled).toEqual([{ contextId: "cli:main", requestId: expect.any(String) }]);
      const answer = await reply;
      expect(answer).toMatchObject({
        text: "The run was cancelled on request.",
        aborted: { reason: "cancelled", message: "The run was cancelled on request." },
        usage: { inputTokens: 0, outputTokens: 0 },
      });
      await until(() => !isAlive(pid), "the exec's grandchild to die", { timeoutMs: 3000, fixed: true });
      const next = await client.chatSend({ contextId: "cli:main", text: "again" });
      expect(next).toMatchObject({
        text: "next reply",
        usage: { inputTokens: 10, outputTokens: 10, totalTokens: 20 },
      });
      expect(next.aborted).toBeUndefined();
      await until(
        () => events.some((event) => event.type === "run-end" && !event.aborted),
        "the second run-end",
      );
      const types = events.map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(["tool-call", "tool-result", "step", "run-end"]));
      expect(events.find((event) => event.type === "tool-call")).toMatchObject({
        toolName: "shell_exec",
        summary: grandchild(47, "exec.pid"),
      });
      expect(events.find((event) => event.type === "run-end")).toMatchObject({
        aborted: { reason: "cancelled" },
      });
      stream.abort();
      await listening;
      expect((await client.chatCancel({ contextId: "cli:main" })).cancelled).toEqual([]);
      // Every model call is in the usage log.
      const usageDir = join(rootDir, ".downcity", "usage");
      const [file] = await readdir(usageDir);
      const lines = (await readFile(join(usageDir, file as string), "utf8")).trim().split("\n");
      expect(lines.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({
          contextId: "cli:main",
          inputTokens: 10,
          outputTokens: 10,
          finishReason: "stop",
        }),
      );
    } finally {
      await daemon.close();
    }
    // The abort and every model call are logged with the run's ids.
    const log = await readDaemonLog(rootDir, process.pid);
    expect(log).toContainEqual(
      expect.objectContaining({
        msg: "run aborted",
        reason: "cancelled",
        contextId: "cli:main",
        requestId: expect.any(String),
      }),
    );
    expect(log).toContainEqual(
      expect.objectContaining({
        msg: "model call",
        contextId: "cli:main",
        requestId: expect.any(String),
        inputTokens: 10,
        outputTokens: 10,
        finishReason: "stop",
      }),
    );
  });

  it("takes its limits from run.* in downcity.json: a stalled model stream is cut after run.idleTimeoutMs", async () => {
    const rootDir = world.project("idle");
    await initProject(rootDir);
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(configPath, JSON.stringify({ ...config, run: { idleTimeoutMs: 300 } }));
    const scripted = createScriptedModel([() => new Promise<never>(() => {}), "awake again"]);
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, scripted.model);
    try {
      const started = Date.now();
      const stalled = await client.chatSend({ contextId: "cli:main", text: "hello?" });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(stalled.aborted?.reason).toBe("idle-timeout");
      expect(stalled.text).toContain("run.idleTimeoutMs");
      expect((await client.chatSend({ contextId: "cli:main", text: "again" })).text).toBe("awake again");
    } finally {
      await daemon.close();
    }
  });

  it("stop means stop: a running exec, a background job, a service and a PTY all die, within 2 s", async () => {
    const rootDir = world.project("stop");
    await initProject(rootDir);
    const scripted = createScriptedModel([
      {
        toolCalls: [
          { toolName: "shell_start", input: { command: grandchild(61, "job.pid"), yield_ms: 0 } },
          {
            toolName: "shell_start",
            input: {
              command: grandchild(62, "service.pid"),
              mode: "service",
              service_name: "web",
              yield_ms: 0,
            },
          },
          { toolName: "shell_start", input: { command: grandchild(63, "pty.pid"), tty: true, yield_ms: 0 } },
        ],
      },
      { toolCalls: [{ toolName: "shell_exec", input: { command: grandchild(47, "exec.pid") } }] },
    ]);
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, scripted.model);
    const reply = client
      .chatSend({ contextId: "cli:main", text: "start everything" })
      .catch((error: Error) => error);
    const pids = await until(async () => {
      const found = await Promise.all(
        ["job.pid", "service.pid", "pty.pid", "exec.pid"].map((file) => readPid(rootDir, file)),
      );
      return found.every((pid) => pid !== undefined) ? (found as number[]) : undefined;
    }, "all four grandchild pids");
    const shells = (await snapshots(rootDir)).filter((session) => session.pid !== null);
    expect(shells.map((session) => session.mode).sort()).toEqual([
      "background",
      "background",
      "exec",
      "service",
    ]);
    for (const pid of [...pids, ...shells.map((session) => session.pid as number)])
      expect(isAlive(pid)).toBe(true);

    const started = Date.now();
    await daemon.close();
    expect(Date.now() - started).toBeLessThan(2000);
    for (const pid of [...pids, ...shells.map((session) => session.pid as number)])
      await until(() => !isAlive(pid), `pid ${pid} to be gone`, { timeoutMs: 500, fixed: true });
    await reply;
    // The aborted run is in history, marked so, with the notice.
    const history = createHistoryStore({ dir: join(contextDir(rootDir, "cli:main"), "messages") });
    const last = (await history.read()).at(-1);
    expect(last?.metadata?.aborted).toBe("shutdown");
    expect(JSON.stringify(last?.parts)).toContain("shutting down");
  });

  it("reads provider keys from the project's .env", async () => {
    const rootDir = world.project("dotenv");
    await initProject(rootDir);
    // A stand-in provider that records the key it is called with.
    const keys: Array<string | undefined> = [];
    const provider = createServer((request, response) => {
      keys.push(request.headers["x-api-key"] as string | undefined);
      response.writeHead(400, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "no" } }),
      );
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    const { port } = provider.address() as AddressInfo;
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(
      configPath,
      JSON.stringify({
        ...config,
        llm: { provider: "anthropic", model: "claude-test", baseURL: `http://127.0.0.1:${port}/v1` },
      }),
    );
    await writeFile(join(rootDir, ".env"), "ANTHROPIC_API_KEY=sk-from-dotenv\n");
    const env = { ...world.env };
    delete env.ANTHROPIC_API_KEY;
    const daemon = await runDaemon({ rootDir, env, handleSignals: false, plugins: [] });
    try {
      const client = createDaemonClient({
        host: daemon.host,
        port: daemon.port,
        token: await ensureToken(env),
      });
      await expect(client.chatSend({ contextId: "cli:main", text: "hi" })).rejects.toMatchObject({
        code: "MODEL_ERROR",
      });
      expect(keys[0]).toBe("sk-from-dotenv");
    } finally {
      await daemon.close();
      await new Promise((resolve) => provider.close(resolve));
    }
  });
});
