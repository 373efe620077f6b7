import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NewJournalRecord, RunJournal } from "../store/run-journal.js";

/** A fresh, empty journal storage for one test. */
export interface RunJournalUnderTest {
  /** Opens a handle (a worker); a test may close it and open another (a restart). */
  open(): Promise<RunJournal>;
  cleanup(): Promise<void>;
}

/** Options of `testRunJournal`. */
export interface RunJournalSuiteOptions {
  name: string;
  create(): Promise<RunJournalUnderTest>;
}

const usage = { inputTokens: 10, outputTokens: 5, cachedInputTokens: 0, totalTokens: 15 };

/** The records of a one-step run that called one tool, started at `at`. */
export function sampleRun(requestId: string, at: string, contextId = "web:a"): NewJournalRecord[] {
  return [
    {
      type: "run",
      at,
      requestId,
      contextId,
      messageIds: ["m1"],
      eventIds: [],
      origin: "user",
      settings: { maxSteps: 8, keepLast: 40 },
      model: { provider: "scripted", modelId: "scripted-1" },
    },
    {
      type: "model-call",
      at,
      step: 0,
      purpose: "step",
      request: { historyIds: ["m1"], messageCount: 2, tools: ["shell_run"] },
      response: { content: [{ type: "tool-call", toolCallId: "c1" }], finishReason: "tool-calls", usage },
      startedAt: at,
      latencyMs: 3,
    },
    { type: "tool-start", at, step: 0, toolCallId: "c1", toolName: "shell_run", input: { cmd: "ls" } },
    {
      type: "tool-end",
      at,
      step: 0,
      toolCallId: "c1",
      toolName: "shell_run",
      output: { exitCode: 0 },
      durationMs: 4,
    },
  ];
}

/** The run journal contract: ordered durable appends, read, list with filters, prune. */
export function testRunJournal(options: RunJournalSuiteOptions): void {
  describe(`${options.name}: run journal conformance`, () => {
    let storage: RunJournalUnderTest;
    let journal: RunJournal;
    beforeEach(async () => {
      storage = await options.create();
      journal = await storage.open();
    });
    afterEach(async () => {
      await journal.close().catch(() => {});
      await storage.cleanup();
    });

    it("reads back a run's records in order, stamped with the schema version", async () => {
      const at = new Date().toISOString();
      await journal.append("r1", sampleRun("r1", at));
      const records = await journal.read("r1");
      expect(records?.map((record) => record.type)).toEqual(["run", "model-call", "tool-start", "tool-end"]);
      expect(records?.every((record) => record.v === 1)).toBe(true);
      expect(records?.[3]).toMatchObject({ output: { exitCode: 0 }, durationMs: 4 });
      expect(await journal.read("r-missing")).toBeUndefined();
    });

    it("appends to a run it was told of beforehand (prepare), and a run prepared but never written is no run", async () => {
      if (!journal.prepare) return;
      const at = new Date().toISOString();
      journal.prepare("p1", at);
      journal.prepare("p1", at);
      await journal.append("p1", sampleRun("p1", at));
      await journal.append("p1", [{ type: "end", at, outcome: "completed", steps: 1, usage }]);
      expect((await journal.read("p1"))?.map((record) => record.type)).toEqual([
        "run",
        "model-call",
        "tool-start",
        "tool-end",
        "end",
      ]);
      journal.prepare("p2", at);
      expect(await journal.read("p2")).toBeUndefined();
      expect((await journal.list()).map((run) => run.requestId)).toEqual(["p1"]);
      // Not a request id: nothing is prepared, and the append names the field.
      journal.prepare("../p3", at);
      await expect(journal.append("../p3", sampleRun("p3", at))).rejects.toThrow(/request id/);
    });

    it("refuses a run whose first record is not its run record", async () => {
      await expect(
        journal.append("r2", [
          {
            type: "tool-start",
            at: new Date().toISOString(),
            step: 0,
            toolCallId: "c",
            toolName: "t",
            input: {},
          },
        ]),
      ).rejects.toThrow(/run/);
    });

    it("keeps what was appended across a restart, and a later attempt appends to the same run", async () => {
      const at = new Date().toISOString();
      await journal.append("r3", sampleRun("r3", at));
      await journal.close();
      journal = await storage.open();
      await journal.append("r3", [
        { type: "attempt", at, attempt: 2, fromStep: 0, reason: "restart" },
        { type: "end", at, outcome: "completed", steps: 1, usage },
      ]);
      const [summary] = await journal.list();
      expect(summary).toMatchObject({ requestId: "r3", status: "completed", attempts: 2, toolCalls: 1 });
      expect(summary?.usage.totalTokens).toBe(15);
    });

    it("lists newest first and filters by context, status and start time", async () => {
      const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
      const recent = new Date().toISOString();
      await journal.append("old", sampleRun("old", old, "web:a"));
      await journal.append("old", [
        { type: "end", at: old, outcome: "failed", error: { message: "boom" }, steps: 0, usage },
      ]);
      await journal.append("new", sampleRun("new", recent, "web:b"));
      expect((await journal.list()).map((run) => run.requestId)).toEqual(["new", "old"]);
      expect((await journal.list({ contextId: "web:a" })).map((run) => run.requestId)).toEqual(["old"]);
      expect((await journal.list({ status: "running" })).map((run) => run.requestId)).toEqual(["new"]);
      expect((await journal.list({ status: "failed" })).map((run) => run.requestId)).toEqual(["old"]);
      const since = new Date(Date.now() - 86_400_000);
      expect((await journal.list({ since })).map((run) => run.requestId)).toEqual(["new"]);
      expect(await journal.list({ limit: 1 })).toHaveLength(1);
    });

    it("prunes runs that started before the cut-off and keeps the others", async () => {
      const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
      await journal.append("ancient", sampleRun("ancient", old));
      await journal.append("ancient", [{ type: "end", at: old, outcome: "completed", steps: 1, usage }]);
      await journal.append("fresh", sampleRun("fresh", new Date().toISOString()));
      expect(await journal.prune(new Date(Date.now() - 30 * 86_400_000))).toBe(1);
      expect(await journal.read("ancient")).toBeUndefined();
      expect(await journal.read("fresh")).toBeDefined();
    });

    it("keeps concurrent appends of one run whole and in their call order", async () => {
      const at = new Date().toISOString();
      await journal.append("r5", sampleRun("r5", at).slice(0, 1));
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          journal.append("r5", [
            { type: "tool-start", at, step: index, toolCallId: `c${index}`, toolName: "t", input: { index } },
          ]),
        ),
      );
      const steps = (await journal.read("r5"))?.flatMap((record) =>
        record.type === "tool-start" ? [record.step] : [],
      );
      expect(steps).toEqual(Array.from({ length: 20 }, (_, index) => index));
    });
  });
}
