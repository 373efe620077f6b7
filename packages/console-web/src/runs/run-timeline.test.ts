import { describe, expect, it } from "vitest";
import { bounded, deliveryText, runTimeline } from "./run-timeline.js";
import type { RunRecordView } from "./run-types.js";

const usage = (input: number, output: number, cached = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cachedInputTokens: cached,
  totalTokens: input + output,
});
const at = "2026-11-25T10:00:00.000Z";

describe("runTimeline", () => {
  it("groups model calls, tool calls, step ends and replies by step, attempts and the end apart", () => {
    const records: RunRecordView[] = [
      { type: "run", at, route: { channel: "telegram", chatId: "42" } },
      { type: "tool-start", at, step: 0, toolCallId: "c1", toolName: "shell_exec", input: { command: "ls" } },
      {
        type: "model-call",
        at,
        step: 0,
        purpose: "step",
        latencyMs: 812,
        response: { finishReason: "tool-calls", usage: usage(300, 20, 256) },
      },
      {
        type: "tool-end",
        at,
        step: 0,
        toolCallId: "c1",
        toolName: "shell_exec",
        output: { exit_code: 0 },
        durationMs: 31,
      },
      {
        type: "step",
        at,
        step: 0,
        finishReason: "tool-calls",
        usage: usage(300, 20, 256),
        latencyMs: 850,
        text: "",
      },
      { type: "attempt", at, attempt: 2, fromStep: 1, reason: "restart" },
      { type: "model-call", at, step: 1, purpose: "compaction", latencyMs: 90, error: "rate limited" },
      {
        type: "tool-start",
        at,
        step: 1,
        toolCallId: "c2",
        toolName: "shell_exec",
        input: { command: "rm x" },
      },
      {
        type: "tool-end",
        at,
        step: 1,
        toolCallId: "c2",
        toolName: "shell_exec",
        error: "interrupted by a restart",
        durationMs: 0,
        replayed: "interrupted",
      },
      { type: "reply", at, step: 1, key: "r1:1:0", via: "final-text", text: "Done." },
      { type: "content", at },
      { type: "end", at, outcome: "failed", error: { code: "MODEL_ERROR", message: "boom" } },
    ];
    const timeline = runTimeline(records);
    expect(timeline.route).toEqual({ channel: "telegram", chatId: "42" });
    expect(timeline.steps.map((step) => step.step)).toEqual([0, 1]);
    const [first, second] = timeline.steps;
    expect(first).toMatchObject({
      finished: true,
      finishReason: "tool-calls",
      latencyMs: 850,
      modelCalls: [{ latencyMs: 812, finishReason: "tool-calls", usage: usage(300, 20, 256) }],
      tools: [
        {
          toolName: "shell_exec",
          input: { command: "ls" },
          output: { exit_code: 0 },
          durationMs: 31,
          ended: true,
        },
      ],
    });
    expect(second).toMatchObject({
      finished: false,
      modelCalls: [],
      tools: [{ error: "interrupted by a restart", replayed: "interrupted", ended: true }],
      replies: [{ key: "r1:1:0", via: "final-text", text: "Done." }],
    });
    expect(timeline.otherCalls).toEqual([{ purpose: "compaction", latencyMs: 90, error: "rate limited" }]);
    expect(timeline.attempts).toEqual([{ attempt: 2, fromStep: 1, reason: "restart", at }]);
    expect(timeline.end).toEqual({ outcome: "failed", at, error: "MODEL_ERROR: boom" });
  });

  it("lists the shell sessions the run started, in order", () => {
    const timeline = runTimeline([
      { type: "shell", at, shellId: "sh_a", mode: "exec", command: "ls", status: "exited" },
      {
        type: "shell",
        at,
        shellId: "sh_b",
        mode: "service",
        serviceName: "web",
        command: "npm run dev",
        status: "running",
      },
    ]);
    expect(timeline.shells).toEqual([
      { shellId: "sh_a", mode: "exec", command: "ls", status: "exited", at },
      { shellId: "sh_b", mode: "service", serviceName: "web", command: "npm run dev", status: "running", at },
    ]);
    expect(timeline.steps).toEqual([]);
  });

  it("keeps a tool call that started without an end as not ended", () => {
    const timeline = runTimeline([
      { type: "tool-start", at, step: 0, toolCallId: "c", toolName: "shell_exec", input: {} },
    ]);
    expect(timeline.steps[0]?.tools[0]).toMatchObject({ ended: false });
  });

  it("says where a reply stands in the outbox, and nothing for one no channel took", () => {
    expect(deliveryText({ status: "sent", chunks: 2 })).toBe("sent in 2 chunks");
    expect(
      deliveryText({ status: "pending", chunks: 1, attempts: 1, lastError: "429 Too Many Requests" }),
    ).toBe("pending (1 failed send: 429 Too Many Requests)");
    expect(deliveryText({ status: "dead", chunks: 1, attempts: 5, lastError: "403" })).toBe(
      "dead (5 failed sends: 403)",
    );
    expect(deliveryText({ status: "unknown", chunks: 0 })).toBe("");
    expect(deliveryText(undefined)).toBe("");
  });

  it("bounds long values and says how long they were", () => {
    expect(bounded("abc", 5)).toEqual({ shown: "abc", cut: false });
    expect(bounded("abcdefgh", 5)).toEqual({ shown: "abcde… (8 characters)", cut: true });
  });
});
