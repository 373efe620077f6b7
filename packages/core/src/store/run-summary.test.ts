import { describe, expect, it } from "vitest";
import type { JournalRecord } from "./run-journal.js";
import { summarizeRun } from "./run-summary.js";

const usage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, totalTokens: 0 };
const run: JournalRecord = {
  v: 1,
  type: "run",
  at: "2026-11-26T10:00:00.000Z",
  requestId: "r1",
  contextId: "console:main",
  messageIds: ["m1"],
  eventIds: [],
  origin: "user",
  worker: "w1",
  settings: { maxSteps: 30, keepLast: 200 },
};
const end = (outcome: "completed" | "interrupted", at: string): JournalRecord => ({
  v: 1,
  type: "end",
  at,
  outcome,
  steps: 1,
  usage,
});
const attempt: JournalRecord = {
  v: 1,
  type: "attempt",
  at: "2026-11-26T10:02:00.000Z",
  attempt: 2,
  fromStep: 1,
  reason: "restart",
  worker: "w2",
};

describe("summarizeRun", () => {
  it("reads a run a restart marked interrupted and another attempt resumed as running on that attempt's worker", () => {
    const summary = summarizeRun([run, end("interrupted", "2026-11-26T10:01:00.000Z"), attempt]);
    expect(summary).toMatchObject({ status: "running", attempts: 2, worker: "w2" });
    expect(summary?.endedAt).toBeUndefined();
  });

  it("reads the resumed attempt's end as the run's outcome", () => {
    const summary = summarizeRun([
      run,
      end("interrupted", "2026-11-26T10:01:00.000Z"),
      attempt,
      end("completed", "2026-11-26T10:03:00.000Z"),
    ]);
    expect(summary).toMatchObject({ status: "completed", endedAt: "2026-11-26T10:03:00.000Z", worker: "w2" });
  });

  it("reads a run cut off without an end as running, and one marked interrupted as interrupted", () => {
    expect(summarizeRun([run])?.status).toBe("running");
    expect(summarizeRun([run, end("interrupted", "2026-11-26T10:01:00.000Z")])?.status).toBe("interrupted");
  });
});
