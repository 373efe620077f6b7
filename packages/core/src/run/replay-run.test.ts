import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { openFileRunJournal } from "../store/file/file-run-journal.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { replayRun } from "./replay-run.js";

const temp = useTempDir("downcity-replay-", "each");

describe("replayRun", () => {
  it("reproduces a recorded 3-step run, and names the step whose recorded tool output was edited", async () => {
    const journal = openFileRunJournal({ rootDir: temp.path });
    const scripted = createScriptedModel([
      { toolCalls: [{ toolName: "add", input: { a: 2, b: 3 }, toolCallId: "call-1" }] },
      { text: "again", toolCalls: [{ toolName: "add", input: { a: 5, b: 1 }, toolCallId: "call-2" }] },
      "the sum is 6",
    ]);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: scripted.model,
      journal,
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }) => ({ sum: a + b }),
        }),
      },
    });
    const { requestId } = await runtime.send({ contextId: "console:main", text: "add" });
    await runtime.close();
    const records = (await journal.read(requestId)) ?? [];

    expect(await replayRun(records)).toEqual({ identical: true, recordedSteps: 3, replayedSteps: 3 });

    const edited = records.map((record) =>
      record.type === "tool-end" && record.toolCallId === "call-2"
        ? { ...record, output: { sum: 7 } }
        : record,
    );
    const report = await replayRun(edited);
    expect(report.identical).toBe(false);
    expect(report.difference).toMatchObject({ step: 1, what: "messages (tool results)" });
  });
});
