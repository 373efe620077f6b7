import { type JournalRecord, runJournalVersion, summarizeRun } from "@downcity/core";
import { describe, expect, it } from "vitest";
import { describeRun, describeRunList } from "./run-timeline.js";

const at = "2026-11-26T10:00:00.000Z";
const usage = { inputTokens: 1200, outputTokens: 30, cachedInputTokens: 1024, totalTokens: 1230 };
const records = [
  {
    type: "run",
    requestId: "r1",
    contextId: "web:a",
    messageIds: ["m1"],
    eventIds: [],
    origin: "user",
    settings: { maxSteps: 8, keepLast: 40 },
  },
  {
    type: "model-call",
    step: 0,
    purpose: "step",
    request: { historyIds: ["m1"], messageCount: 3, tools: [] },
    response: { content: [{ type: "text", text: "Hello." }], finishReason: "stop", usage },
    startedAt: at,
    latencyMs: 40,
  },
  {
    type: "step",
    step: 0,
    finishReason: "stop",
    usage,
    text: "Hello.",
    toolCallIds: [],
    messages: [],
    latencyMs: 41,
  },
  { type: "end", outcome: "completed", steps: 1, usage },
].map((record) => ({ v: runJournalVersion, at, ...record })) as JournalRecord[];

describe("run timeline", () => {
  it("shows the cached input tokens of the run and of each step", () => {
    const summary = summarizeRun(records);
    expect(summary?.usage.cachedInputTokens).toBe(1024);
    const text = describeRun(records, summary!);
    expect(text).toContain("usage     1200 in, 1024 cached in / 30 out (1230 total)");
    expect(text).toMatch(/step 0 +stop, 1200 in \(1024 cached\) \/ 30 out, 41 ms/);
    expect(text).toMatch(/model call +40 ms, 1200 in \(1024 cached\) \/ 30 out/);
    expect(describeRunList([summary!])).toContain("1230 tokens (1024 cached input)");
  });

  it("shows where each reply stands in the outbox, and nothing for a reply no channel took", () => {
    const [start, ...rest] = records;
    const reply = (key: string, text: string) =>
      ({
        v: runJournalVersion,
        at,
        type: "reply",
        key,
        step: 0,
        via: "chat_send",
        contextId: "web:a",
        text,
      }) as const;
    const withReplies = [
      start,
      reply("e:0:0", "first"),
      reply("e:0:1", "second"),
      reply("e:0:2", "third"),
      reply("e:0:3", "fourth"),
      ...rest,
    ] as JournalRecord[];
    const text = describeRun(withReplies, summarizeRun(withReplies)!, false, {
      "e:0:0": { status: "sent", chunks: 3 },
      "e:0:1": { status: "pending", chunks: 1, attempts: 2, lastError: "429 Too Many Requests" },
      "e:0:2": { status: "dead", chunks: 1, attempts: 5, lastError: "403 Forbidden" },
      "e:0:3": { status: "unknown", chunks: 0 },
    });
    expect(text).toContain("reply e:0:0  chat_send  sent in 3 chunks  first");
    expect(text).toContain("reply e:0:1  chat_send  pending (2 failed sends: 429 Too Many Requests)  second");
    expect(text).toContain("reply e:0:2  chat_send  dead (5 failed sends: 403 Forbidden)  third");
    expect(text).toContain("reply e:0:3  chat_send  fourth");
  });

  it("names the worker of the run's latest attempt (a run another worker took over)", () => {
    const [start, ...rest] = records;
    const withWorkers = [
      { ...start, worker: "host-a:1:aaaa" },
      {
        v: runJournalVersion,
        at,
        type: "attempt",
        attempt: 2,
        fromStep: 0,
        reason: "restart",
        worker: "host-b:2:bbbb",
      },
      ...rest,
    ] as JournalRecord[];
    const summary = summarizeRun(withWorkers);
    expect(summary?.worker).toBe("host-b:2:bbbb");
    expect(describeRunList([summary!])).toContain("worker host-b:2:bbbb");
    expect(describeRun(withWorkers, summary!)).toContain("  worker    host-b:2:bbbb");
    expect(describeRunList([summarizeRun(records)!])).not.toContain("worker");
  });

  it("shows every approval asked for and decided, with who answered", () => {
    const approvals = [
      {
        type: "approval",
        code: "K7Q2",
        state: "requested",
        subject: { kind: "command", command: "git push" },
      },
      {
        type: "approval",
        code: "K7Q2",
        state: "always",
        by: "hook:boss",
        rules: ["git push *"],
        subject: { kind: "command", command: "git push" },
      },
      {
        type: "approval",
        code: "M3XT",
        state: "deny",
        by: "cli",
        subject: { kind: "tool", toolName: "mcp__fs__write_file", input: { path: "a" } },
      },
    ].map((record) => ({ v: runJournalVersion, at, ...record })) as JournalRecord[];
    const all = [...records.slice(0, -1), ...approvals, ...records.slice(-1)];
    const text = describeRun(all, summarizeRun(all)!);
    expect(text).toContain(`approval K7Q2  requested  ${at}  git push`);
    expect(text).toContain(`approval K7Q2  always by hook:boss (stored git push *)  ${at}  git push`);
    expect(text).toContain(`approval M3XT  deny by cli  ${at}  mcp__fs__write_file {"path":"a"}`);
    expect(text.indexOf("approval M3XT")).toBeLessThan(text.indexOf("end  completed"));
  });
});
