import { afterAll, describe, expect, it } from "vitest";
import { holdHistoryLock, killAndResume, lines, textOf, type WebhookReply } from "./resume-kill-world.js";

/** The replies the user received, by text: each text's distinct idempotency keys (the platform shows one message per key). */
const keysByText = (replies: WebhookReply[]) => {
  const byText = new Map<string, Set<string>>();
  for (const reply of replies)
    byText.set(reply.text, (byText.get(reply.text) ?? new Set()).add(reply.idempotencyKey));
  return Object.fromEntries([...byText].map(([text, keys]) => [text, [...keys]]));
};

const toolParts = (message: { parts: Array<{ type: string; toolName?: string }> } | undefined) =>
  (message?.parts ?? []).filter((part) => part.type === "dynamic-tool").map((part) => part.toolName);

describe("SIGKILL mid-run, then restart: the run resumes from its journal, no tool runs twice, one answer reaches the user", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("(a) killed while a shell tool runs: the tool is not run again, the model hears its outcome is unknown", async () => {
    const answer = "Outcome unknown; please check.";
    const { marker, replies, history, records, modelCalls } = await killAndResume({
      name: "tool",
      cleanups,
      answer,
      respond: async (call, { restarted, marker: path }) => {
        const last = call.messages.at(-1);
        if (last?.role === "tool")
          return {
            text: restarted && last.text.includes("interrupted by a restart") ? answer : "unexpected",
          };
        return {
          toolCalls: [{ toolName: "shell_exec", input: { command: `echo ran >> '${path}'; sleep 60` } }],
        };
      },
      killWhen: async ({ marker: path }) => (await lines(path)).length === 1,
    });
    expect(await lines(marker)).toEqual(["ran"]);
    expect(replies.map((reply) => reply.text)).toEqual([answer]);
    expect(modelCalls).toBe(2);
    const assistant = history.filter((message) => message.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(toolParts(assistant[0])).toEqual(["shell_exec"]);
    expect(textOf(assistant[0] as never)).toBe(answer);
    expect(records.filter((record) => record.type === "attempt")).toHaveLength(1);
    expect(records.find((record) => record.type === "tool-end")).toMatchObject({ replayed: "interrupted" });
    // The restart marked the cut-off attempt interrupted; the resumed attempt completed it.
    expect(records.filter((record) => record.type === "end").map((record) => record.outcome)).toEqual([
      "interrupted",
      "completed",
    ]);
  }, 120_000);

  it("(b) killed after a tool finished, while the next model call is in flight: the tool's result is reused, the progress message and the answer arrive once each", async () => {
    let hold: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      hold = resolve;
    });
    cleanups.push(async () => hold());
    let inFlight = false;
    const answer = "Marked once.";
    const { marker, replies, history, records, modelCalls } = await killAndResume({
      name: "model",
      cleanups,
      answer,
      respond: async (call, { restarted, marker: path }) => {
        const last = call.messages.at(-1);
        if (last?.role !== "tool")
          return {
            toolCalls: [
              { toolName: "chat_send", input: { text: "Working on it…" } },
              { toolName: "shell_exec", input: { command: `echo ran >> '${path}'; echo marked-it` } },
            ],
          };
        if (!restarted) {
          inFlight = true;
          await held;
        }
        // The resumed call sees the recorded tool output of the first process.
        return { text: last.text.includes("marked-it") ? answer : "unexpected" };
      },
      killWhen: () => inFlight,
    });
    hold();
    expect(await lines(marker)).toEqual(["ran"]);
    // Keyed by run (its trigger message, the same in both attempts), step and part: the answer is
    // not swallowed by the progress message's key.
    const byText = keysByText(replies);
    const run = String(byText["Working on it…"]?.[0]).replace(/:0:0$/, "");
    expect(byText).toEqual({ "Working on it…": [`${run}:0:0`], [answer]: [`${run}:1:0`] });
    expect(modelCalls).toBe(3);
    const assistant = history.filter((message) => message.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(toolParts(assistant[0])).toEqual(["chat_send", "shell_exec"]);
    expect(records.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0, 1]);
    expect(records.filter((record) => record.type === "end").map((record) => record.outcome)).toEqual([
      "interrupted",
      "completed",
    ]);
  }, 120_000);

  it("(c) killed between the run's last step and its reply reaching the user: the answer arrives once, the model is not asked again", async () => {
    const answer = "Marked once.";
    let release: () => Promise<void> = async () => {};
    const { marker, replies, history, records, modelCalls } = await killAndResume({
      name: "reply",
      cleanups,
      answer,
      // The platform is down when the answer is first sent, and another process holds the chat's
      // history: the kill comes after the last step, with the answer neither delivered nor stored.
      refuseRepliesUntilRestart: true,
      respond: async (call, { marker: path, rootDir, restarted }) => {
        if (call.messages.at(-1)?.role === "tool") return { text: answer };
        if (!restarted) release = await holdHistoryLock(rootDir);
        return { toolCalls: [{ toolName: "shell_exec", input: { command: `echo ran >> '${path}'` } }] };
      },
      killWhen: ({ refused }) => refused > 0,
      beforeRestart: () => release(),
    });
    expect(await lines(marker)).toEqual(["ran"]);
    expect(keysByText(replies)).toEqual({ [answer]: [expect.stringMatching(/:1:0$/)] });
    expect(replies).toHaveLength(1);
    expect(modelCalls).toBe(2);
    const assistant = history.filter((message) => message.role === "assistant");
    expect(assistant).toHaveLength(1);
    expect(toolParts(assistant[0])).toEqual(["shell_exec"]);
    expect(textOf(assistant[0] as never)).toBe(answer);
    expect(records.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0, 1]);
    // The journal had the answer's step and no end: the restart resumed it only to finish it.
    expect(records.filter((record) => record.type === "attempt")).toEqual([
      expect.objectContaining({ attempt: 2, fromStep: 2 }),
    ]);
    expect(records.filter((record) => record.type === "end").map((record) => record.outcome)).toEqual([
      "interrupted",
      "completed",
    ]);
  }, 120_000);
});
