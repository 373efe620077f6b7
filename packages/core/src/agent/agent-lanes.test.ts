import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";

const temp = useTempDir("downcity-lanes-", "each");

describe("runtime lanes", () => {
  it("merges a message that arrives mid-run at the next step boundary so the model sees it before the run ends", async () => {
    let releaseTool: () => void = () => {};
    const toolStarted = new Promise<void>((resolve) => {
      releaseTool = resolve;
    });
    let unblock: () => void = () => {};
    const blocker = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "slow", input: {} }] },
      (call) =>
        call.messages.some((m) => m.role === "user" && m.text === "also: use blue")
          ? "saw the follow-up"
          : "missed it",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      tools: {
        slow: tool({
          inputSchema: z.object({}),
          execute: async () => {
            releaseTool();
            await blocker;
            return "done";
          },
        }),
      },
    });
    const first = runtime.send({ contextId: "c", text: "paint the fence", messageId: "m1" });
    await toolStarted;
    const second = runtime.send({ contextId: "c", text: "also: use blue", messageId: "m2" });
    unblock();
    const [a, b] = await Promise.all([first, second]);
    expect(a.text).toBe("saw the follow-up");
    expect(b.requestId).toBe(a.requestId);
    expect(scripted.calls).toHaveLength(2);
    const stored = await runtime.history("c").read();
    expect(stored.map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    // The merged message sits after the first step's tool call/result in the second call's prompt.
    const secondCall = scripted.calls[1]?.messages ?? [];
    const toolIndex = secondCall.findIndex((m) => m.text.includes("[tool-result slow"));
    const mergedIndex = secondCall.findIndex((m) => m.text === "also: use blue");
    expect(toolIndex).toBeGreaterThan(-1);
    expect(mergedIndex).toBeGreaterThan(toolIndex);
    await runtime.close();
  });

  it("drops a duplicate messageId and answers it with the original run's result", async () => {
    const scripted = createScriptedModel([{ text: "once", delayMs: 5 }]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    const [a, b] = await Promise.all([
      runtime.send({ contextId: "c", text: "hi", messageId: "same" }),
      runtime.send({ contextId: "c", text: "hi", messageId: "same" }),
    ]);
    const c = await runtime.send({ contextId: "c", text: "hi", messageId: "same" });
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(scripted.calls).toHaveLength(1);
    expect(await runtime.history("c").read()).toHaveLength(2);
    await runtime.close();
  });

  it("runs a message again when it is re-sent with the same messageId after its run failed", async () => {
    const scripted = createScriptedModel([new Error("provider down"), "second try worked"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model });
    await expect(runtime.send({ contextId: "c", text: "hi", messageId: "retry-me" })).rejects.toMatchObject({
      code: "MODEL_ERROR",
    });
    await expect(runtime.send({ contextId: "c", text: "hi", messageId: "retry-me" })).resolves.toMatchObject({
      text: "second try worked",
    });
    expect(scripted.calls).toHaveLength(2);
    await runtime.close();
  });

  it("runs different contexts concurrently up to maxConcurrency", async () => {
    let active = 0;
    let peak = 0;
    const scripted = createScriptedModel(
      Array.from({ length: 6 }, () => async () => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setTimeout(resolve, 30));
        active--;
        return "ok";
      }),
    );
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, maxConcurrency: 3 });
    await Promise.all(
      Array.from({ length: 6 }, (_, index) => runtime.send({ contextId: `c${index}`, text: "go" })),
    );
    expect(peak).toBe(3);
    await runtime.close();
  });

  it("rejects new messages after close and fails queued ones with RUNTIME_CLOSED", async () => {
    const scripted = createScriptedModel([{ text: "slow", delayMs: 30 }, "never"]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: scripted.model, maxConcurrency: 1 });
    const running = runtime.send({ contextId: "a", text: "1" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const queued = runtime.send({ contextId: "b", text: "2" });
    const closing = runtime.close();
    await expect(queued).rejects.toMatchObject({ code: "RUNTIME_CLOSED" });
    await expect(runtime.send({ contextId: "a", text: "3" })).rejects.toMatchObject({
      code: "RUNTIME_CLOSED",
    });
    await expect(running).resolves.toMatchObject({ text: "slow" });
    await closing;
  });
});
