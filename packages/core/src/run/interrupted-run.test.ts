import { describe, expect, it } from "vitest";
import type { JournalRecord } from "../store/run-journal.js";
import { interruptedRunMessage, interruptedRunNote } from "./interrupted-run.js";
import { interruptedToolOutput } from "./resume-point.js";

const at = "2026-11-26T00:00:00.000Z";
const run = (eventIds: string[]): JournalRecord => ({
  v: 1,
  at,
  type: "run",
  requestId: "req-1",
  contextId: "console:main",
  messageIds: ["m1"],
  eventIds,
  origin: "user",
  settings: { maxSteps: 30, keepLast: 200 },
});
const usage = { inputTokens: 1, outputTokens: 1, cachedInputTokens: 0, totalTokens: 2 };
const started = (toolCallId: string, step: number): JournalRecord => ({
  v: 1,
  at,
  type: "tool-start",
  step,
  toolCallId,
  toolName: "shell_exec",
  input: { command: `echo ${toolCallId}` },
});
const finishedStep: JournalRecord[] = [
  started("c1", 0),
  {
    v: 1,
    at,
    type: "tool-end",
    step: 0,
    toolCallId: "c1",
    toolName: "shell_exec",
    output: "c1",
    durationMs: 3,
  },
  {
    v: 1,
    at,
    type: "step",
    step: 0,
    finishReason: "tool-calls",
    usage,
    text: "",
    toolCallIds: ["c1"],
    messages: [
      {
        role: "assistant",
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "shell_exec", input: { command: "echo c1" } },
        ],
      },
      { role: "tool", content: [] },
    ],
    latencyMs: 5,
  },
];
const options = { id: "a1", now: new Date(at) };

describe("the history message of a run a crash cut off for good", () => {
  it("holds the finished step's call and the cut-off call with its outcome unknown, marked interrupted", () => {
    const message = interruptedRunMessage([run([]), ...finishedStep, started("c2", 1)], options);
    expect(message?.metadata).toMatchObject({
      requestId: "req-1",
      contextId: "console:main",
      interrupted: true,
    });
    expect(message?.parts).toEqual([
      expect.objectContaining({ toolCallId: "c1", state: "output-available", output: "c1" }),
      { type: "step-start" },
      expect.objectContaining({ toolCallId: "c2", state: "output-error", errorText: interruptedToolOutput }),
      { type: "step-start" },
      { type: "text", text: interruptedRunNote },
    ]);
  });

  it("leaves a run a channel event started to its replay, and a run that ran nothing alone", () => {
    expect(interruptedRunMessage([run(["tg:1"]), ...finishedStep], options)).toBeUndefined();
    expect(interruptedRunMessage([run([])], options)).toBeUndefined();
  });
});
