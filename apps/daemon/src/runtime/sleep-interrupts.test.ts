import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentRuntime, createAgentRuntime, type ToolSource } from "@downcity/core";
import { createScriptedModel, type ScriptedModel } from "@downcity/core/scripted";
import { createShellEngine, type ShellEngine, type ShellSleepResult } from "@downcity/shell";
import { createShellTools } from "@downcity/shell/ai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createSleepInterrupts, type SleepInterrupts } from "./sleep-interrupts.js";

let dir: string;
let engine: ShellEngine;
let runtime: AgentRuntime | undefined;
let interrupts: SleepInterrupts | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dc-sleep-"));
  engine = createShellEngine({ rootDir: dir });
});
afterEach(async () => {
  interrupts?.close();
  await runtime?.close();
  await engine.closeAll({ grace_ms: 100 });
  await rm(dir, { recursive: true, force: true });
});

/** A runtime wired as the daemon wires it, recording each shell_sleep result and when a sleep starts listening. */
function wire(scripted: ScriptedModel, closeGraceMs = 5000) {
  const results: ShellSleepResult[] = [];
  let sleeping: () => void = () => {};
  const asleep = new Promise<void>((resolve) => {
    sleeping = resolve;
  });
  const built = createAgentRuntime({ rootDir: dir, model: scripted.model, closeGraceMs });
  const sources = createSleepInterrupts({ runtime: built });
  const shellTools: ToolSource = (run) => {
    const source = sources.forRun(run);
    const tools = createShellTools(engine, {
      contextId: run.contextId,
      requestId: run.requestId,
      abortSignal: run.abortSignal,
      sleep: {
        ...source,
        onInterrupt(listener) {
          const off = source.onInterrupt(listener);
          sleeping();
          return off;
        },
      },
    });
    const execute = tools.shell_sleep.execute;
    tools.shell_sleep.execute = async (input, options) => {
      const result = (await execute?.(input, options)) as ShellSleepResult;
      results.push(result);
      return result;
    };
    return tools;
  };
  built.addTools(shellTools);
  runtime = built;
  interrupts = sources;
  return { runtime: built, results, asleep };
}

const sleepCall = {
  toolCalls: [{ toolName: "shell_sleep", input: { duration_ms: 600000, description: "deploy" } }],
};

describe("shell_sleep in the daemon", () => {
  test("a new message in the same chat ends the sleep and is merged into the run", async () => {
    // The model is shared by both chats: each later call answers with the last message it saw.
    const answer = (call: { messages: Array<{ text: string }> }) => `saw: ${call.messages.at(-1)?.text}`;
    const scripted = createScriptedModel([sleepCall, answer, answer]);
    const { runtime, results, asleep } = wire(scripted);
    const first = runtime.send({ contextId: "chat-1", text: "wait for the deploy" });
    await asleep;
    // Another chat's message does not wake this one.
    expect((await runtime.send({ contextId: "chat-2", text: "unrelated" })).text).toBe("saw: unrelated");
    expect(results).toEqual([]);
    const second = runtime.send({ contextId: "chat-1", text: "never mind, it is done" });
    const result = await first;
    expect(results).toMatchObject([{ interrupted: true, reason: "message" }]);
    expect(results[0]?.slept_ms).toBeLessThan(60000);
    expect(result.text).toBe("saw: never mind, it is done");
    expect((await second).requestId).toBe(result.requestId);
  });

  test("a message queued before the sleep starts makes it return at once", async () => {
    let queued: Promise<unknown> | undefined;
    const scripted = createScriptedModel([
      () => {
        queued = runtime?.send({ contextId: "chat-1", text: "arrived during the step" });
        return sleepCall;
      },
      "merged",
    ]);
    const { runtime: built, results } = wire(scripted);
    const result = await built.send({ contextId: "chat-1", text: "go" });
    await queued;
    expect(results).toEqual([{ slept_ms: 0, interrupted: true, reason: "message" }]);
    expect(result.text).toBe("merged");
    expect(scripted.calls[1]?.messages.map((message) => message.text)).toContain("arrived during the step");
  });

  test("cancelling the run (daemon shutdown) ends the sleep as cancelled", async () => {
    const scripted = createScriptedModel([sleepCall, "unused"]);
    const { runtime: built, results, asleep } = wire(scripted, 0);
    const run = built.send({ contextId: "chat-1", text: "wait" }).catch((error: unknown) => error);
    await asleep;
    const began = performance.now();
    await built.close();
    await run;
    expect(results).toMatchObject([{ interrupted: true, reason: "cancelled" }]);
    expect(performance.now() - began).toBeLessThan(10000);
  });
});
