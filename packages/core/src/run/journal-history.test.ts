import { until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { APICallError, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import type { HistoryMessage } from "../history/history-message.js";
import { openFileRunJournal } from "../store/file/file-run-journal.js";
import { createScriptedModel } from "../test/scripted-model.js";
import type { ScriptedTurn } from "../test/scripted-turn.js";
import { replayRun } from "./replay-run.js";

const temp = useTempDir("downcity-journal-history-", "each");
const never = new Promise<never>(() => {});

/** A journaled runtime with one tool, `add`, that counts its executions. */
function journaledRuntime(turns: ScriptedTurn[], maxSteps?: number) {
  const scripted = createScriptedModel(turns);
  const journal = openFileRunJournal({ rootDir: temp.path });
  const executions: unknown[] = [];
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model: scripted.model,
    journal,
    modelRetry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...(maxSteps ? { maxSteps } : {}),
    tools: {
      add: tool({
        inputSchema: z.object({ a: z.number(), b: z.number() }),
        execute: async ({ a, b }) => {
          executions.push({ a, b });
          return { sum: a + b };
        },
      }),
    },
  });
  return { scripted, journal, runtime, executions };
}

const addCall = { toolCalls: [{ toolName: "add", input: { a: 2, b: 3 }, toolCallId: "call-1" }] };
const addPart = expect.objectContaining({
  type: "dynamic-tool",
  toolCallId: "call-1",
  toolName: "add",
  state: "output-available",
  input: { a: 2, b: 3 },
  output: { sum: 5 },
});

async function assistantMessages(runtime: ReturnType<typeof journaledRuntime>["runtime"], contextId: string) {
  const history: HistoryMessage[] = await runtime.history(contextId).read();
  return history.filter((message) => message.role === "assistant");
}

describe("the history message of a journaled run, from its journal", () => {
  it("completed: the tool call with its output, then the answer", async () => {
    const { runtime } = journaledRuntime([addCall, "The sum is 5."]);
    await runtime.send({ contextId: "console:done", text: "add" });
    const [message] = await assistantMessages(runtime, "console:done");
    await runtime.close();
    expect(message?.parts).toEqual([
      addPart,
      { type: "step-start" },
      { type: "text", text: "The sum is 5." },
    ]);
  });

  it("aborted: the finished step's tool call stays in history beside the notice", async () => {
    const journaled = journaledRuntime([addCall, () => never]);
    const { runtime, scripted } = journaled;
    const sent = runtime.send({ contextId: "console:stop", text: "add" });
    await until(() => scripted.calls.length === 2, "the second model call");
    await runtime.cancel({ contextId: "console:stop" });
    const result = await sent;
    const [message] = await assistantMessages(runtime, "console:stop");
    await runtime.close();
    expect(result.aborted?.reason).toBe("cancelled");
    expect(message?.metadata?.aborted).toBe("cancelled");
    expect(message?.parts).toContainEqual(addPart);
    expect(message?.parts.at(-1)).toEqual({ type: "text", text: result.text });
  });

  it("failed: the tool that ran is in history, marked failed, and the same event is run again, not taken as answered", async () => {
    const { runtime, executions, journal } = journaledRuntime([
      addCall,
      new Error("provider down"),
      "Retried: 5.",
    ]);
    const message = { contextId: "console:fail", text: "add", messageId: "evt-fail" };
    await expect(runtime.send(message)).rejects.toThrow(/provider down/);
    const [failed] = await assistantMessages(runtime, "console:fail");
    expect(failed?.metadata?.failed).toBe("MODEL_ERROR");
    expect(failed?.parts).toContainEqual(addPart);
    expect(failed?.parts.at(-1)).toMatchObject({ type: "text", text: expect.stringContaining("failed") });
    // The inbox retries a failed event under the same id: it is answered anew.
    const retried = await runtime.send(message);
    await runtime.close();
    expect(retried.text).toBe("Retried: 5.");
    expect(executions).toHaveLength(1);
    expect((await journal.list()).map((run) => run.status).sort()).toEqual(["completed", "failed"]);
  });

  it("a context-window retry keeps the steps of the stream it replaced, without asking for them again", async () => {
    const overflow = new Error("This model's maximum context length is 8192 tokens");
    const { runtime, journal, executions, scripted } = journaledRuntime([addCall, overflow, "The sum is 5."]);
    const result = await runtime.send({ contextId: "console:overflow", text: "add" });
    const [message] = await assistantMessages(runtime, "console:overflow");
    await runtime.close();
    expect(result.text).toBe("The sum is 5.");
    expect(message?.parts).toContainEqual(addPart);
    expect(message?.parts.at(-1)).toEqual({ type: "text", text: "The sum is 5." });
    const records = (await journal.read(result.requestId)) ?? [];
    const steps = records.flatMap((record) => (record.type === "step" ? [record] : []));
    // The replaced stream's step keeps its own messages; the retry's step records only its own.
    expect(steps[0]?.messages).toHaveLength(2);
    expect(steps.at(-1)?.messages).toHaveLength(1);
    // The retry's call carried step 0's call and result: the tool ran once.
    expect(executions).toHaveLength(1);
    expect(scripted.calls.at(-1)?.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(records.filter((record) => record.type === "attempt")).toEqual([
      expect.objectContaining({ attempt: 2, fromStep: 1, reason: "retry" }),
    ]);
  });

  it("a retry after a failed model call keeps the finished steps: the model is not asked for them, their tools do not run again", async () => {
    const unavailable = new APICallError({
      message: "overloaded",
      url: "http://127.0.0.1/v1/chat",
      requestBodyValues: {},
      statusCode: 503,
    });
    const { runtime, executions, scripted, journal } = journaledRuntime([
      addCall,
      unavailable,
      (call) => (call.messages.at(-1)?.role === "tool" ? "The sum is 5." : addCall),
    ]);
    const result = await runtime.send({ contextId: "console:retry", text: "add" });
    const [message] = await assistantMessages(runtime, "console:retry");
    await runtime.close();
    expect(result.text).toBe("The sum is 5.");
    expect(executions).toHaveLength(1);
    expect(scripted.calls).toHaveLength(3);
    expect(message?.parts.filter((part) => part.type === "dynamic-tool")).toEqual([addPart]);
    // The journal reads as one run of two steps: it replays identically.
    const records = (await journal.read(result.requestId)) ?? [];
    expect(await replayRun(records)).toEqual({ identical: true, recordedSteps: 2, replayedSteps: 2 });
  });

  it("a retried stream's steps count against the run's step limit with the steps it continues", async () => {
    const unavailable = new APICallError({
      message: "busy",
      url: "http://127.0.0.1/v1",
      requestBodyValues: {},
      statusCode: 503,
    });
    const again = { toolCalls: [{ toolName: "add", input: { a: 1, b: 1 }, toolCallId: "call-2" }] };
    const { runtime, scripted, executions } = journaledRuntime(
      [addCall, unavailable, again, "over the limit"],
      2,
    );
    const result = await runtime.send({ contextId: "console:limit", text: "add" });
    await runtime.close();
    expect(scripted.calls).toHaveLength(3);
    expect(executions).toHaveLength(2);
    expect(result.text).toContain("I stopped after 2 steps");
  });
});
