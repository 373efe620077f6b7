import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { createWorkerCluster } from "./worker-cluster.js";

const secret = "claim-lost-secret-0123456789abcdef";
const leaseMs = 3000;
const answer = "Marked once.";

const lines = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);

describe("a worker that loses its claim mid-run (real PostgreSQL, two daemons)", () => {
  const cleanups = cleanupsAfterAll();

  it("stops at the step boundary, runs no tool twice, and the next owner finishes the run once", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const paths = { started: "", go: "", marker: "" };
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        if (last?.role !== "tool") {
          // The tool blocks until the test lets it go: the claim is lost while it runs.
          const command = `echo started >> '${paths.started}'; while [ ! -f '${paths.go}' ]; do sleep 0.05; done; echo ran >> '${paths.marker}'; echo marked-it`;
          return { toolCalls: [{ toolName: "shell_exec", input: { command, timeout_ms: 120_000 } }] };
        }
        return { text: last.text.includes("marked-it") ? answer : `unexpected: ${last.text}` };
      },
    });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      leaseMs,
    });
    cleanups.push(() => cluster.close());
    paths.started = join(cluster.baseDir, "started.txt");
    paths.go = join(cluster.baseDir, "go");
    paths.marker = join(cluster.baseDir, "marker.txt");
    const [first, second] = cluster.workers as [
      (typeof cluster.workers)[number],
      (typeof cluster.workers)[number],
    ];
    try {
      await first.start();
      await second.start();
      const body = JSON.stringify({
        eventId: "evt-claim-lost",
        chatId: "c1",
        chatType: "direct",
        userId: "u1",
        text: "mark it once",
      });
      expect((await postSigned(first.hookPort, body, secret))?.status).toBe(202);
      await until(async () => (await lines(paths.started)).length > 0, "the tool to start", {
        timeoutMs: 60_000,
      });
      const [held] = await cluster.query<{ id: string; claimed_by: string }>(
        "SELECT id, claimed_by FROM downcity_inbox WHERE status = 'pending'",
      );
      const runner = cluster.workers.find((worker) => worker.workerId === held?.claimed_by);
      expect(runner, `the claim holder ${held?.claimed_by}`).toBeDefined();
      // The claim is stolen while the tool runs (as when a stalled worker's lease lapsed and another took it).
      await cluster.query(
        "UPDATE downcity_inbox SET claimed_by = 'thief', claimed_until = clock_timestamp() + interval '10 minutes' WHERE id = $1",
        [held?.id],
      );
      await until(
        async () => (await runner?.logTail(400))?.includes("lost the claim on an inbox event"),
        "the runner to notice the lost claim",
        { timeoutMs: 30_000 },
      );
      // The tool finishes after the loss: its step is journaled, and no further step begins.
      await writeFile(paths.go, "");
      const stopped = await until(
        async () =>
          (await runner?.logTail(400))?.includes("another worker took its event over") ? true : undefined,
        "the runner to stop at the step boundary",
        { timeoutMs: 60_000 },
      );
      expect(stopped).toBe(true);
      const [run] = await cluster.query<{ request_id: string }>("SELECT request_id FROM downcity_runs");
      const requestId = String(run?.request_id);
      const journal = async () =>
        (
          await cluster.query<{ record: Record<string, unknown> }>(
            "SELECT record FROM downcity_run_records WHERE request_id = $1 ORDER BY seq",
            [requestId],
          )
        ).map((row) => row.record);
      const before = await journal();
      expect(before.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0]);
      expect(before.filter((record) => record.type === "end")).toEqual([]);
      expect(model.calls.filter(isStepCall)).toHaveLength(1);
      expect(receiver.replies).toEqual([]);

      // The thief's lease lapses; the next owner continues from the finished step.
      await cluster.query("UPDATE downcity_inbox SET claimed_until = clock_timestamp() WHERE id = $1", [
        held?.id,
      ]);
      await until(() => receiver.replies.some((reply) => reply.text === answer), "the answer", {
        timeoutMs: 60_000,
      });
      const records = await until(async () => {
        const rows = await journal();
        return rows.at(-1)?.type === "end" ? rows : undefined;
      }, "the journal's end");
      await until(
        async () =>
          (
            await cluster.query("SELECT 1 FROM downcity_inbox WHERE id = $1 AND status = 'pending'", [
              held?.id,
            ])
          ).length === 0,
        "the event to be done",
      );

      expect(existsSync(paths.marker)).toBe(true);
      expect(await lines(paths.marker)).toEqual(["ran"]);
      expect(await lines(paths.started)).toEqual(["started"]);
      expect(receiver.replies.map((reply) => reply.text)).toEqual([answer]);
      // Step 0 ran once on the runner; only step 1 was asked of the model again, by the next owner.
      expect(model.calls.filter(isStepCall)).toHaveLength(2);
      expect(records.filter((record) => record.type === "attempt")).toEqual([
        expect.objectContaining({ attempt: 2, fromStep: 1 }),
      ]);
      expect(records.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0, 1]);
      expect(records.filter((record) => record.type === "end")).toEqual([
        expect.objectContaining({ outcome: "completed", steps: 2 }),
      ]);
      const { messages } = await (await second.client()).chatHistory({ contextId: "hook:c1", last: 100 });
      const assistant = messages.filter((message) => message.role === "assistant");
      expect(assistant).toHaveLength(1);
      expect(
        assistant[0]?.parts.flatMap((part) => (part.type === "dynamic-tool" ? [part.toolName] : [])),
      ).toEqual(["shell_exec"]);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    } finally {
      await writeFile(paths.go, "").catch(() => {});
    }
  }, 240_000);
});
