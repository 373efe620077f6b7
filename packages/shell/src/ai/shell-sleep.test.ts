import { EventEmitter, once } from "node:events";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, test } from "vitest";
import { shellSleepInput } from "../shell-inputs.js";
import { createTempEngine, type TempEngine } from "../testing/create-temp-engine.js";
import { createShellTools } from "./create-shell-tools.js";
import { type ShellSleepInterrupts, type ShellSleepTick, shellSleep } from "./shell-sleep.js";

let temp: TempEngine | undefined;
afterEach(async () => {
  await temp?.dispose();
  temp = undefined;
});

/** An interrupt source like a host builds one: "message" events, and a signal once the sleep listens. */
function messages(pending = false) {
  const emitter = new EventEmitter();
  const ticks: ShellSleepTick[] = [];
  const interrupts: ShellSleepInterrupts = {
    pending: () => pending,
    onInterrupt(listener) {
      emitter.on("message", listener);
      emitter.emit("listening");
      return () => emitter.off("message", listener);
    },
    onTick: (tick) => {
      ticks.push(tick);
      emitter.emit("tick", tick);
    },
  };
  return { emitter, interrupts, ticks };
}

describe("shell_sleep", () => {
  test("sleeps the whole duration when nothing happens", async () => {
    const { interrupts, emitter } = messages();
    const result = await shellSleep({ duration_ms: 150, description: "d" }, interrupts, []);
    expect(result).toMatchObject({ interrupted: false, reason: "elapsed" });
    expect(result.slept_ms).toBeGreaterThanOrEqual(149);
    expect(emitter.listenerCount("message")).toBe(0);
  });

  test("a new message ends it early", async () => {
    const { interrupts, emitter } = messages();
    const listening = once(emitter, "listening");
    const sleeping = shellSleep({ duration_ms: 3600000, description: "build" }, interrupts, []);
    await listening;
    emitter.emit("message");
    const result = await sleeping;
    expect(result).toMatchObject({ interrupted: true, reason: "message" });
    expect(result.slept_ms).toBeLessThan(5000);
    expect(emitter.listenerCount("message")).toBe(0);
  });

  test("a message already waiting returns at once", async () => {
    const { interrupts } = messages(true);
    expect(await shellSleep({ duration_ms: 3600000, description: "d" }, interrupts, [])).toEqual({
      slept_ms: 0,
      interrupted: true,
      reason: "message",
    });
  });

  test("cancelling the run ends it, whichever signal aborts", async () => {
    const run = new AbortController();
    const call = new AbortController();
    const sleeping = shellSleep({ duration_ms: 3600000, description: "d" }, undefined, [
      run.signal,
      call.signal,
    ]);
    call.abort();
    expect(await sleeping).toMatchObject({ interrupted: true, reason: "cancelled" });
    run.abort();
    expect(await shellSleep({ duration_ms: 1000, description: "d" }, undefined, [run.signal])).toMatchObject({
      slept_ms: 0,
      reason: "cancelled",
    });
  });

  test("ticks report progress until the sleep ends", async () => {
    const { interrupts, emitter, ticks } = messages();
    emitter.on("tick", (tick: ShellSleepTick) => {
      if (tick.tick === 3) emitter.emit("message");
    });
    const result = await shellSleep(
      { duration_ms: 3600000, tick_interval_ms: 30, description: "waiting for CI" },
      interrupts,
      [],
    );
    expect(result.reason).toBe("message");
    expect(ticks.map((tick) => tick.tick)).toEqual([1, 2, 3]);
    expect(ticks[2]).toMatchObject({ description: "waiting for CI" });
    expect(ticks[2]?.slept_ms).toBeGreaterThanOrEqual(89);
    expect((ticks[2]?.slept_ms ?? 0) + (ticks[2]?.remaining_ms ?? 0)).toBe(3600000);
  });

  test("the tool's limits: 100 ms to 1 hour, ticks at least 5 s apart, a description", () => {
    const ok = { duration_ms: 100, description: "x" };
    expect(shellSleepInput.safeParse(ok).success).toBe(true);
    expect(shellSleepInput.safeParse({ ...ok, duration_ms: 99 }).success).toBe(false);
    expect(shellSleepInput.safeParse({ ...ok, duration_ms: 3600001 }).success).toBe(false);
    expect(shellSleepInput.safeParse({ ...ok, tick_interval_ms: 4999 }).success).toBe(false);
    expect(shellSleepInput.safeParse({ ...ok, tick_interval_ms: 5000 }).success).toBe(true);
    expect(shellSleepInput.safeParse({ duration_ms: 100 }).success).toBe(false);
  });

  test("through the AI SDK: a model's shell_sleep returns when a message arrives, with a real tick", async () => {
    temp = createTempEngine();
    const { interrupts, emitter, ticks } = messages();
    // The first real tick comes after the 5 s minimum; the message follows it.
    emitter.on("tick", () => emitter.emit("message"));
    const results: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const tool = [...options.prompt].reverse().find((message) => message.role === "tool");
        if (tool && Array.isArray(tool.content)) {
          const part = tool.content.at(-1) as { output: { value: unknown } };
          results.push(part.output.value);
          return {
            content: [{ type: "text", text: "woke up" }],
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 1, text: 1, reasoning: undefined },
            },
            warnings: [],
          };
        }
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: "call_1",
              toolName: "shell_sleep",
              input: JSON.stringify({ duration_ms: 600000, tick_interval_ms: 5000, description: "deploy" }),
            },
          ],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      prompt: "wait for the deploy",
      tools: createShellTools(temp.engine, { contextId: "c", sleep: interrupts }),
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("woke up");
    expect(results).toMatchObject([{ interrupted: true, reason: "message" }]);
    expect(ticks).toMatchObject([{ tick: 1, description: "deploy" }]);
    expect(ticks[0]?.slept_ms).toBeGreaterThanOrEqual(4990);
  }, 20000);
});
