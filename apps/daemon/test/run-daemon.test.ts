import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { definePlugin } from "@downcity/core";
import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { freePort, isAlive, until } from "@downcity/testkit";
import { tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDaemonClient, daemonPaths, ensureToken, initProject } from "../src/index.js";
import { runDaemon } from "../src/server.js";
import { createTempWorld } from "./temp-project.js";

type LogLine = { level: string; msg?: string; contextId?: string; requestId?: string } & Record<
  string,
  unknown
>;

describe("runDaemon in-process", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  let model: OpenAICompatibleServer;
  beforeAll(async () => {
    world = await createTempWorld("dc-run-");
    model = await startOpenAICompatibleServer({ apiKey: "sk-run-test" });
  });
  afterAll(async () => {
    await model.close();
    await world.cleanup();
  });

  it("starts without a usable llm, on start.port, and every chat names the field to set", async () => {
    const rootDir = world.project("no-llm");
    await initProject(rootDir);
    const port = await freePort();
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(configPath, JSON.stringify({ ...config, start: { port } }));
    const daemon = await runDaemon({ rootDir, env: world.env, handleSignals: false, plugins: [] });
    try {
      expect(daemon).toMatchObject({ host: "127.0.0.1", port });
      const meta = JSON.parse(await readFile(daemonPaths(rootDir).metaFile, "utf8"));
      expect(meta).toMatchObject({ pid: process.pid, host: "127.0.0.1", port });
      const client = createDaemonClient({ host: daemon.host, port, token: await ensureToken(world.env) });
      expect((await client.health()).ok).toBe(true);
      for (const contextId of ["console:main", "console:other"]) {
        await expect(client.chatSend({ text: "hello?", contextId })).rejects.toMatchObject({
          code: "MODEL_NOT_CONFIGURED",
          message: expect.stringContaining('"llm"'),
        });
      }
      expect((await client.servicesList()).services.map((service) => service.name)).toEqual([
        "chat",
        "shell",
        "approvals",
        "channels",
        "inbox",
        "outbox",
        "access",
        "contacts",
      ]);
    } finally {
      await daemon.close();
    }
    expect(existsSync(daemonPaths(rootDir).pidFile)).toBe(false);
  });

  it("writes contextId and requestId on every line logged inside a run, and never the token", async () => {
    const rootDir = world.project("logs");
    await initProject(rootDir, {
      llm: {
        provider: "openai-compatible",
        model: "scripted",
        baseURL: model.url,
        apiKey: "${RUN_TEST_KEY}",
      },
    });
    // A plug-in whose tool logs through the logger the daemon hands to plug-ins.
    const probe = definePlugin({
      name: "probe",
      setup({ logger }) {
        return {
          tools: [
            () => ({
              probe_log: tool({
                description: "logs a line",
                inputSchema: z.object({}),
                execute: async () => {
                  logger.info({ probe: true }, "probe tool ran");
                  return { ok: true };
                },
              }),
            }),
          ],
        };
      },
    });
    model.push(
      { toolCalls: [{ toolName: "probe_log", input: {} }] },
      { toolCalls: [{ toolName: "shell_exec", input: { command: "echo logged" } }] },
      "all done",
    );
    const env = { ...world.env, RUN_TEST_KEY: "sk-run-test" };
    const daemon = await runDaemon({ rootDir, env, handleSignals: false, plugins: [probe] });
    const token = await ensureToken(env);
    let reply: { requestId: string; contextId: string; text: string };
    try {
      const client = createDaemonClient({ host: daemon.host, port: daemon.port, token });
      reply = await client.chatSend({ text: "log something", contextId: "console:logs" });
      expect(reply.text).toBe("all done");
    } finally {
      await daemon.close();
    }
    const day = new Date().toISOString().slice(0, 10);
    const text = await readFile(join(rootDir, ".downcity", "logs", `${day}.jsonl`), "utf8");
    expect(text).not.toContain(token);
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as LogLine);
    const inRun = lines.filter((line) =>
      ["run started", "probe tool ran", "run finished"].includes(line.msg ?? ""),
    );
    expect(inRun.map((line) => line.msg)).toEqual(["run started", "probe tool ran", "run finished"]);
    for (const line of inRun) {
      expect(line, line.msg).toMatchObject({ contextId: "console:logs", requestId: reply.requestId });
    }
  });

  it("shuts down gracefully: intake stops, the running turn is aborted and kept in history, shells close, pid file goes", async () => {
    const rootDir = world.project("graceful");
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url, apiKey: "sk-run-test" },
    });
    const daemon = await runDaemon({ rootDir, env: world.env, handleSignals: false, plugins: [] });
    const client = createDaemonClient({
      host: daemon.host,
      port: daemon.port,
      token: await ensureToken(world.env),
    });
    const shell = (await client.servicesCommand({
      service: "shell",
      action: "start",
      payload: { command: "sleep 30", yield_ms: 50 },
    })) as { result: { pid: number } };
    const shellPid = shell.result.pid;
    expect(isAlive(shellPid)).toBe(true);

    const slow = "a reply that streams slowly enough to be cut off";
    // Several seconds of streaming: the shutdown always lands mid-reply, however loaded the machine.
    model.push({ text: slow, chunkSize: 2, delayMs: 250 });
    const callsBefore = model.calls.length;
    const inFlight = client.chatSend({ text: "take your time", contextId: "console:graceful" });
    await until(() => model.calls.length > callsBefore, "the slow turn to reach the model");
    const closing = daemon.close();
    // Intake has stopped once a new request is refused (503 while closing, or no listener at all).
    await until(
      () =>
        client.health().then(
          () => false,
          () => true,
        ),
      "the daemon to refuse new requests",
    );
    await expect(client.chatSend({ text: "too late", contextId: "console:late" })).rejects.toBeTruthy();
    // Shutdown aborts a running turn at once (it never waits for a slow model) and answers it.
    const reply = await inFlight;
    expect(reply.text).toContain("shutting down");
    expect(reply.text).not.toBe(slow);
    await closing;
    await daemon.closed;

    expect(isAlive(shellPid)).toBe(false);
    expect(existsSync(daemonPaths(rootDir).pidFile)).toBe(false);
    expect(existsSync(daemonPaths(rootDir).metaFile)).toBe(false);
    const history = await readFile(
      join(rootDir, ".downcity", "context", "console%3Agraceful", "messages", "messages.jsonl"),
      "utf8",
    );
    const lines = history
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { role: string; metadata?: { aborted?: string } });
    expect(lines.map((line) => line.role)).toEqual(["user", "assistant"]);
    expect(lines[1]?.metadata?.aborted).toBe("shutdown");
    expect(history).toContain("take your time");
    expect(history).not.toContain(slow);
    expect(existsSync(join(rootDir, ".downcity", "context", "console%3Alate"))).toBe(false);
  });
});
