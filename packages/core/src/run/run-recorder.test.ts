import type { StepResult, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger/logger.js";
import type { NewJournalRecord, RunJournal } from "../store/run-journal.js";
import { createRunRecorder } from "./run-recorder.js";

/** A journal whose appends settle when the test says so, in the order they were made. */
function heldJournal() {
  const batches: string[][] = [];
  const settle: Array<() => void> = [];
  const journal: RunJournal = {
    append: (_requestId, records: readonly NewJournalRecord[]) => {
      batches.push(records.map((record) => record.type));
      return new Promise<void>((resolve) => settle.push(resolve));
    },
    read: async () => undefined,
    list: async () => [],
    prune: async () => 0,
    close: async () => {},
  };
  return { journal, batches, release: () => settle.shift()?.() };
}

const step = {
  usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
  finishReason: "tool-calls",
  text: "",
  toolCalls: [{ toolCallId: "c1" }],
  response: { messages: [] },
} as unknown as StepResult<ToolSet>;

describe("createRunRecorder", () => {
  // However the earlier appends interleave with the event loop, a flush made while one is under
  // way or waiting goes after it: a step's records never land before the tool start they follow.
  for (const ticks of [0, 1, 2, 3]) {
    it(`keeps appends in order when a flush comes ${ticks} microtask(s) after an append settles`, async () => {
      const { journal, batches, release } = heldJournal();
      const recorder = createRunRecorder({
        journal,
        requestId: "r1",
        redact: (value) => value,
        logger: silentLogger,
      });
      recorder.begin({
        contextId: "c",
        messageIds: [],
        eventIds: [],
        origin: "user",
        settings: { maxSteps: 5, keepLast: 5 },
      });
      const started = recorder.toolStarted({ toolCallId: "c1", toolName: "t", input: {} });
      expect(batches).toEqual([["run", "tool-start"]]);
      recorder.toolEnded({ toolCallId: "c1", toolName: "t", output: 1, startedAt: Date.now() });
      const finished = recorder.stepFinished(step);
      // The step waits for the tool start's append.
      expect(batches).toHaveLength(1);
      release();
      for (let tick = 0; tick < ticks; tick++) await Promise.resolve();
      const ended = recorder.end({ outcome: "completed" });
      for (let round = 0; round < 20 && batches.length < 3; round++) {
        await new Promise((resolve) => setImmediate(resolve));
        release();
      }
      release();
      await Promise.all([started, finished, ended]);
      expect(batches).toEqual([["run", "tool-start"], ["tool-end", "step"], ["end"]]);
    });
  }
});
