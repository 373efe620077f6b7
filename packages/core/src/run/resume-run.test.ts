import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import { until } from "@downcity/testkit";
import { useTempDir } from "@downcity/testkit/vitest";
import { tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRuntime } from "../agent/agent-runtime.js";
import { DowncityError } from "../errors/downcity-error.js";
import { openFileOutbox } from "../store/file/file-outbox.js";
import { openFileRunJournal } from "../store/file/file-run-journal.js";
import type { OutboxStore } from "../store/outbox-store.js";
import type { JournalRecord, RunJournal } from "../store/run-journal.js";
import { createScriptedModel } from "../test/scripted-model.js";
import type { ScriptedTurn } from "../test/scripted-turn.js";
import { interruptedToolOutput } from "./resume-point.js";

const temp = useTempDir("downcity-resume-", "each");
const never = new Promise<never>(() => {});

/**
 * A worker that dies mid-run: its runtime is abandoned (never closed, as a killed process never
 * closes), and a second runtime on the same project takes the replayed event, as after a restart.
 */
function worker(
  turns: ScriptedTurn[],
  mark: (input: { note: string }) => Promise<unknown>,
  wrap: (journal: RunJournal) => RunJournal = (journal) => journal,
) {
  const scripted = createScriptedModel(turns);
  const journal = wrap(openFileRunJournal({ rootDir: temp.path }));
  const runtime = createAgentRuntime({
    rootDir: temp.path,
    model: scripted.model,
    journal,
    tools: {
      mark: tool({ inputSchema: z.object({ note: z.string() }), execute: mark }),
    },
  });
  return { scripted, journal, runtime };
}

const markerPath = () => join(temp.path, "marker.txt");
const markerLines = async () =>
  (await readFile(markerPath(), "utf8").catch(() => "")).split("\n").filter(Boolean);
const writeMarker = async ({ note }: { note: string }) => {
  await appendFile(markerPath(), `${note}\n`);
  return { written: note };
};
const message = { contextId: "console:main", text: "mark it", messageId: "evt-1" };

async function recordsOf(journal: RunJournal): Promise<JournalRecord[]> {
  const [run] = await journal.list();
  return (run && (await journal.read(run.requestId))) ?? [];
}

describe("resume after a crash", () => {
  it("never runs a tool the crash interrupted again: the model is told its outcome is unknown", async () => {
    const first = worker(
      [{ toolCalls: [{ toolName: "mark", input: { note: "once" }, toolCallId: "c1" }] }],
      async (input) => {
        await writeMarker(input);
        return never;
      },
    );
    void first.runtime.send(message).catch(() => {});
    await until(async () => (await markerLines()).length === 1, "the tool to start");

    const second = worker(["I could not confirm the mark; please check."], writeMarker);
    const result = await second.runtime.send(message);
    await second.runtime.close();
    expect(await markerLines()).toEqual(["once"]);
    expect(second.scripted.calls).toHaveLength(1);
    expect(second.scripted.calls[0]?.messages.map((entry) => entry.text).join("\n")).toContain(
      "interrupted by a restart",
    );
    const records = await recordsOf(second.journal);
    expect(records.find((record) => record.type === "run")).toMatchObject({ requestId: result.requestId });
    expect(records.filter((record) => record.type === "attempt")).toEqual([
      expect.objectContaining({ attempt: 2, fromStep: 0, reason: "restart" }),
    ]);
    expect(records.find((record) => record.type === "tool-end")).toMatchObject({
      toolCallId: "c1",
      replayed: "interrupted",
    });
    expect(records.at(-1)).toMatchObject({ type: "end", outcome: "completed", steps: 2 });
  });

  it("keeps a finished tool's result and does not call the model again for its step", async () => {
    const first = worker(
      [{ toolCalls: [{ toolName: "mark", input: { note: "done" }, toolCallId: "c1" }] }, () => never],
      writeMarker,
    );
    void first.runtime.send(message).catch(() => {});
    await until(
      async () => (await recordsOf(first.journal)).some((record) => record.type === "step"),
      "the tool's step to finish",
    );

    const second = worker(["Marked."], writeMarker);
    const result = await second.runtime.send(message);
    await second.runtime.close();
    expect(result.text).toBe("Marked.");
    expect(await markerLines()).toEqual(["done"]);
    expect(second.scripted.calls).toHaveLength(1);
    expect(second.scripted.calls[0]?.messages.map((entry) => entry.text).join("\n")).toContain("done");
    const records = await recordsOf(second.journal);
    expect(
      records.filter((record) => record.type === "step").map((record) => "step" in record && record.step),
    ).toEqual([0, 1]);
    expect(records.at(-1)).toMatchObject({ type: "end", outcome: "completed" });
  });

  it("delivers the recorded answer once when the crash came between the last step and the reply", async () => {
    const first = worker(["The answer."], writeMarker);
    const delivered: string[] = [];
    first.runtime.registerSender("web", () => never);
    void first.runtime.send({ ...message, contextId: "web:a", channel: "web", chatId: "a" }).catch(() => {});
    await until(
      async () => (await recordsOf(first.journal)).some((record) => record.type === "step"),
      "the last step to finish",
    );

    const second = worker([], writeMarker);
    second.runtime.registerSender("web", (reply) => {
      delivered.push(reply.text);
    });
    const result = await second.runtime.send({ ...message, contextId: "web:a", channel: "web", chatId: "a" });
    await second.runtime.close();
    expect(result.text).toBe("The answer.");
    expect(delivered).toEqual(["The answer."]);
    expect(second.scripted.calls).toHaveLength(0);
    const history = await second.runtime.history("web:a").read();
    expect(history.map((entry) => entry.role)).toEqual(["user", "assistant"]);
    expect((await recordsOf(second.journal)).at(-1)).toMatchObject({ type: "end", outcome: "completed" });
  });

  it("delivers a progress message sent before the crash and the resumed run's answer once each", async () => {
    const outbox = await openFileOutbox({ path: join(temp.path, "outbox.jsonl") });
    // Replies go where the channel host puts them: the outbox, which keeps the first chunk of a key.
    const toOutbox =
      (store: OutboxStore) => async (reply: { key?: string; chatId?: string; text: string }) => {
        await store.record({
          key: reply.key ?? "no key",
          channel: "web",
          contextId: "web:a",
          target: { chatId: reply.chatId ?? "" },
          text: reply.text,
        });
      };
    const routed = { ...message, contextId: "web:a", channel: "web", chatId: "a" };
    const first = worker(
      [
        {
          toolCalls: [
            { toolName: "chat_send", input: { text: "Working on it…" }, toolCallId: "c0" },
            { toolName: "mark", input: { note: "once" }, toolCallId: "c1" },
          ],
        },
      ],
      async (input) => {
        await writeMarker(input);
        return never;
      },
    );
    first.runtime.registerSender("web", toOutbox(outbox));
    void first.runtime.send(routed).catch(() => {});
    await until(
      async () => (await markerLines()).length === 1 && (await outbox.list()).length === 1,
      "the progress message and the tool",
    );

    const second = worker(["Done, marked once."], writeMarker);
    second.runtime.registerSender("web", toOutbox(outbox));
    await second.runtime.send(routed);
    await second.runtime.close();
    const entries = await outbox.list();
    await outbox.close();
    // Keys are named after the trigger message, the same in every attempt of the run.
    expect(entries.map((entry) => [entry.key, entry.text])).toEqual([
      [`${routed.messageId}:0:0`, "Working on it…"],
      [`${routed.messageId}:1:0`, "Done, marked once."],
    ]);
    expect(await markerLines()).toEqual(["once"]);
    // History holds the cut-off attempt's tool calls too, then the answer.
    const [answer] = (await second.runtime.history("web:a").read()).filter(
      (entry) => entry.role === "assistant",
    );
    expect(answer?.parts).toEqual([
      expect.objectContaining({ type: "dynamic-tool", toolName: "chat_send", toolCallId: "c0" }),
      expect.objectContaining({
        type: "dynamic-tool",
        toolName: "mark",
        toolCallId: "c1",
        output: interruptedToolOutput,
      }),
      { type: "step-start" },
      { type: "text", text: "Done, marked once." },
    ]);
  });

  it("continues from what the old owner finished after the resume point was read (read again after the fence)", async () => {
    const first = worker(
      [{ toolCalls: [{ toolName: "mark", input: { note: "late" }, toolCallId: "c1" }] }, () => never],
      writeMarker,
    );
    void first.runtime.send(message).catch(() => {});
    await until(
      async () => (await recordsOf(first.journal)).some((record) => record.type === "step"),
      "the tool's step to finish",
    );
    // The new owner's first read sees the journal as it was before the old owner's tool result and
    // step landed (they came in the moment between that read and the new attempt's fence).
    let reads = 0;
    const staleFirstRead = (journal: RunJournal): RunJournal => ({
      ...journal,
      async read(requestId) {
        const records = await journal.read(requestId);
        if (reads++ > 0 || !records) return records;
        return records.slice(
          0,
          records.findIndex((record) => record.type === "tool-end"),
        );
      },
    });
    const second = worker(["Marked late."], writeMarker, staleFirstRead);
    const result = await second.runtime.send(message);
    await second.runtime.close();
    expect(result.text).toBe("Marked late.");
    expect(await markerLines()).toEqual(["late"]);
    expect(second.scripted.calls).toHaveLength(1);
    const prompt = second.scripted.calls[0]?.messages.map((entry) => entry.text).join("\n");
    expect(prompt).toContain("late");
    expect(prompt).not.toContain("interrupted by a restart");
    const records = await recordsOf(second.journal);
    expect(records.some((record) => record.type === "tool-end" && record.replayed === "interrupted")).toBe(
      false,
    );
    expect(
      records
        .filter((record) => record.type === "step")
        .map((record) => record.type === "step" && record.step),
    ).toEqual([0, 1]);
  });

  it("never starts a tool once another worker resumed the run: the refused tool start stops it", async () => {
    const fenced = (journal: RunJournal): RunJournal => ({
      ...journal,
      async append(requestId, records, options) {
        if (records.some((record) => record.type === "tool-start"))
          throw new DowncityError(
            "CONFLICT",
            `Run ${requestId} continues under attempt 2 (another worker took it over)`,
          );
        return journal.append(requestId, records, options);
      },
    });
    const lost = worker(
      [{ toolCalls: [{ toolName: "mark", input: { note: "never" }, toolCallId: "c1" }] }, "Not reached."],
      writeMarker,
      fenced,
    );
    const outcome = await lost.runtime.send(message).then(
      (result) => result,
      (error: unknown) => error,
    );
    const history = await lost.runtime.history(message.contextId).read();
    await lost.runtime.close();
    expect(await markerLines()).toEqual([]);
    expect(lost.scripted.calls).toHaveLength(1);
    // Settled as handed over: nothing stored or said here, the new owner finishes the run.
    expect(outcome).toMatchObject({ reason: "claim-lost" });
    expect(history.filter((entry) => entry.role === "assistant")).toEqual([]);
  });
});
