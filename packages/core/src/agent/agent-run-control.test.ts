import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RuntimeEvent } from "../run/runtime-event.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-run-control-", "each");

/** A tool that blocks until released (or forever), telling the test when it started. */
function blockingTool() {
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    running,
    release,
    tool: tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async () => {
        started();
        await released;
        return { exit_code: 0 };
      },
    }),
  };
}

function recordEvents(runtime: { on(listener: (event: RuntimeEvent) => void): () => void }) {
  const events: RuntimeEvent[] = [];
  runtime.on((event) => events.push(event));
  return events;
}

describe("run control", () => {
  it("emits tool-call, tool-result and step events, and sums usage on the run", async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "shell_exec", input: { command: "npm   test" } }] },
      "all green",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: {
        shell_exec: tool({
          inputSchema: z.object({ command: z.string() }),
          execute: async () => ({ exit_code: 3, output: "" }),
        }),
        broken: tool({
          inputSchema: z.object({}),
          execute: async () => ({ error: "NOPE", message: "no way" }),
        }),
      },
    });
    const events = recordEvents(runtime);
    const result = await runtime.send({ contextId: "cli:main", text: "run the tests" });
    expect(result.text).toBe("all green");
    const call = events.find((event) => event.type === "tool-call");
    expect(call).toMatchObject({ toolName: "shell_exec", summary: "npm test", step: 0 });
    const done = events.find((event) => event.type === "tool-result");
    expect(done).toMatchObject({ toolName: "shell_exec", ok: true, summary: "exit 3", step: 0 });
    expect(done?.type === "tool-result" && done.durationMs).toBeGreaterThanOrEqual(0);
    const steps = events.filter((event) => event.type === "step");
    expect(steps.map((event) => event.type === "step" && event.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(steps[0]).toMatchObject({
      provider: "mock-provider",
      usage: { inputTokens: 10, outputTokens: 10 },
    });
    const end = events.find((event) => event.type === "run-end");
    expect(end).toMatchObject({ usage: { inputTokens: 20, outputTokens: 20, totalTokens: 40 } });
    expect(result.usage.totalTokens).toBe(40);
    expect(events.findIndex((event) => event.type === "tool-call")).toBeLessThan(
      events.findIndex((event) => event.type === "tool-result"),
    );
    await runtime.close();
  });

  it("cancels a run by context: the lane moves on and history keeps the partial run marked aborted", async () => {
    const blocking = blockingTool();
    const scripted = createScriptedModel([
      { text: "Running it now. ", toolCalls: [{ toolName: "shell_exec", input: { command: "sleep 47" } }] },
      "second reply",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: { shell_exec: blocking.tool },
    });
    const events = recordEvents(runtime);
    const first = runtime.send({ contextId: "cli:main", text: "sleep" });
    await blocking.running;
    const second = runtime.send({ contextId: "cli:main", text: "next" });
    const cancelled = await runtime.cancel({ contextId: "cli:main" });
    expect(cancelled).toEqual([{ contextId: "cli:main", requestId: expect.any(String) }]);
    const result = await first;
    expect(result.aborted).toEqual({ reason: "cancelled", message: "The run was cancelled on request." });
    expect(result.text).toBe("The run was cancelled on request.");
    expect((await second).text).toBe("second reply");
    const stored = await runtime.history("cli:main").read();
    const aborted = stored.find((message) => message.metadata?.aborted);
    expect(aborted?.metadata?.aborted).toBe("cancelled");
    expect(aborted?.parts).toEqual([
      { type: "text", text: "Running it now. " },
      expect.objectContaining({ type: "dynamic-tool", toolName: "shell_exec", state: "output-error" }),
      { type: "text", text: "The run was cancelled on request." },
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "chat-message", text: "The run was cancelled on request." }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({ type: "tool-result", ok: false, summary: "aborted", toolName: "shell_exec" }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "run-end",
        aborted: { reason: "cancelled", message: expect.any(String) },
      }),
    );
    blocking.release();
    expect(await runtime.cancel({ contextId: "cli:main" })).toEqual([]);
    await runtime.close();
  });

  it("cancels one run by request id and leaves other contexts running", async () => {
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "wait", input: { command: "a" } }] },
      { toolCalls: [{ toolName: "wait", input: { command: "b" } }] },
      "b done",
    ]);
    const blocking = blockingTool();
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: { wait: blocking.tool },
    });
    const events = recordEvents(runtime);
    const a = runtime.send({ contextId: "cli:a", text: "a" });
    await blocking.running;
    const b = runtime.send({ contextId: "cli:b", text: "b" });
    const deadline = Date.now() + 5000;
    while (events.filter((event) => event.type === "tool-call").length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const runA = events.find((event) => event.type === "run-start" && event.contextId === "cli:a");
    const requestId = runA?.type === "run-start" ? runA.requestId : "";
    expect(await runtime.cancel({ requestId })).toEqual([{ contextId: "cli:a", requestId }]);
    expect((await a).aborted?.reason).toBe("cancelled");
    blocking.release();
    expect((await b).text).toBe("b done");
    await runtime.close();
  });

  it("aborts a stream that stays silent past run.idleTimeoutMs", async () => {
    const scripted = createScriptedModel([() => new Promise<never>(() => {}), "after the stall"]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      limits: { idleTimeoutMs: 150 },
    });
    const started = Date.now();
    const result = await runtime.send({ contextId: "cli:main", text: "hello" });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.aborted?.reason).toBe("idle-timeout");
    expect(result.text).toContain("run.idleTimeoutMs");
    expect((await runtime.send({ contextId: "cli:main", text: "again" })).text).toBe("after the stall");
    await runtime.close();
  });

  it("does not count a running tool as stream silence, but bounds the step", async () => {
    const blocking = blockingTool();
    const scripted = createScriptedModel([{ toolCalls: [{ toolName: "slow", input: { command: "x" } }] }]);
    let runSignal: AbortSignal | undefined;
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: (run) => {
        runSignal = run.abortSignal;
        return { slow: blocking.tool };
      },
      limits: { idleTimeoutMs: 50, stepTimeoutMs: 400 },
    });
    const result = await runtime.send({ contextId: "cli:main", text: "go" });
    expect(result.aborted?.reason).toBe("step-timeout");
    // Tools and hosts watch the run's signal: a limit aborts it like a cancel does.
    expect(runSignal?.aborted).toBe(true);
    expect(runSignal?.reason).toMatchObject({ code: "RUN_ABORTED", reason: "step-timeout" });
    expect(result.text).toContain("run.stepTimeoutMs");
    blocking.release();
    await runtime.close();
  });

  it("stops a run past run.runTimeoutMs and keeps the text streamed so far", async () => {
    const scripted = createScriptedModel([
      { text: "one two three four five six seven eight nine ten", delayMs: 60 },
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      limits: { runTimeoutMs: 200, idleTimeoutMs: 0, stepTimeoutMs: 0 },
    });
    const result = await runtime.send({ contextId: "cli:main", text: "count" });
    expect(result.aborted?.reason).toBe("run-timeout");
    const [, assistant] = await runtime.history("cli:main").read();
    const streamed = assistant?.parts[0];
    expect(streamed?.type === "text" && streamed.text.startsWith("one ")).toBe(true);
    expect(streamed?.type === "text" && streamed.text.includes("ten")).toBe(false);
    await runtime.close();
  });

  it("aborts running runs at close and persists them", async () => {
    const blocking = blockingTool();
    const scripted = createScriptedModel([{ toolCalls: [{ toolName: "slow", input: { command: "x" } }] }]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: { slow: blocking.tool },
      closeGraceMs: 0,
    });
    const reply = runtime.send({ contextId: "cli:main", text: "go" });
    await blocking.running;
    await runtime.close();
    expect((await reply).aborted?.reason).toBe("shutdown");
    const stored = await runtime.history("cli:main").read();
    expect(stored.at(-1)?.metadata?.aborted).toBe("shutdown");
  });
});
