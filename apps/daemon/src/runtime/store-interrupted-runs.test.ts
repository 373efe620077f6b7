import { createAgentRuntime, type NewJournalRecord, openFileRunJournal, silentLogger } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { storeInterruptedRuns } from "./open-run-journal.js";

const temp = useTempDir("dc-interrupted-runs-", "each");

const runRecord = (requestId: string, eventIds: string[]): NewJournalRecord => ({
  type: "run",
  at: new Date().toISOString(),
  requestId,
  contextId: "console:jobs",
  messageIds: [`m-${requestId}`],
  eventIds,
  origin: "internal",
  settings: { maxSteps: 30, keepLast: 200 },
});
const toolStart = (toolCallId: string): NewJournalRecord => ({
  type: "tool-start",
  at: new Date().toISOString(),
  step: 0,
  toolCallId,
  toolName: "shell_exec",
  input: { command: "make deploy" },
});

describe("interrupted runs at daemon start", () => {
  it("stores the tool calls of a run nothing will resume, and leaves a run a channel event will replay alone", async () => {
    const journal = openFileRunJournal({ rootDir: temp.path });
    await journal.append("task-run", [runRecord("task-run", []), toolStart("c1")]);
    await journal.append("chat-run", [runRecord("chat-run", ["tg:9"]), toolStart("c2")]);
    const runtime = createAgentRuntime({ rootDir: temp.path, model: createScriptedModel([]).model });
    await storeInterruptedRuns(runtime, journal, ["task-run", "chat-run", "unknown-run"], silentLogger);
    const stored = await runtime.history("console:jobs").read();
    await runtime.close();
    await journal.close();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.metadata).toMatchObject({ requestId: "task-run", interrupted: true });
    expect(stored[0]?.parts[0]).toMatchObject({
      type: "dynamic-tool",
      toolCallId: "c1",
      input: { command: "make deploy" },
      state: "output-error",
    });
  });
});
