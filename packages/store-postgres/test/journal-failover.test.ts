import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { createWorkerCluster } from "./worker-cluster.js";

const secret = "journal-failover-secret-0123456789ab";
const leaseMs = 3000;
const answer = "Marked once.";

const lines = async (path: string) =>
  (await readFile(path, "utf8").catch(() => "")).split("\n").filter(Boolean);

describe("run journal on PostgreSQL: a worker SIGKILLed mid-run, another continues from its last finished step", () => {
  const cleanups = cleanupsAfterAll();

  it("runs the tool once, delivers the progress message and the answer once each, and journals both workers' attempts", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    cleanups.push(async () => release());
    const state = { failedOver: false, heldOnFirst: false, marker: "" };
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        const system = call.messages.find((message) => message.role === "system")?.text ?? "";
        if (system.includes("memory extractor")) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        if (last?.role !== "tool")
          return {
            toolCalls: [
              { toolName: "chat_send", input: { text: "Working on it…" } },
              { toolName: "shell_exec", input: { command: `echo ran >> '${state.marker}'; echo marked-it` } },
            ],
          };
        // The first worker dies with this call in flight; the second sees the first's tool output.
        if (!state.failedOver) {
          state.heldOnFirst = true;
          await released;
        }
        return { text: last.text.includes("marked-it") ? answer : "unexpected" };
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
    state.marker = join(cluster.baseDir, "marker.txt");
    const [first, second] = cluster.workers as [
      (typeof cluster.workers)[number],
      (typeof cluster.workers)[number],
    ];
    try {
      await first.start();
      const body = JSON.stringify({
        eventId: "evt-failover",
        chatId: "c1",
        chatType: "direct",
        userId: "u1",
        text: "mark it once",
      });
      expect((await postSigned(first.hookPort, body, secret))?.status).toBe(202);
      await until(() => state.heldOnFirst, "the first worker's second model call", { timeoutMs: 60_000 });
      // The second worker is up before the first dies, as in a cluster: it takes the run over.
      await second.start();
      state.failedOver = true;
      await first.kill();
      await until(() => receiver.replies.some((reply) => reply.text === answer), "the answer", {
        timeoutMs: leaseMs + 30_000,
      });
      const [run] = await cluster.query<{ request_id: string }>("SELECT request_id FROM downcity_runs");
      const requestId = String(run?.request_id);
      const records = await until(async () => {
        const rows = await cluster.query<{ record: Record<string, unknown> }>(
          "SELECT record FROM downcity_run_records WHERE request_id = $1 ORDER BY seq",
          [requestId],
        );
        return rows.at(-1)?.record.type === "end" ? rows.map((row) => row.record) : undefined;
      }, "the journal's end");
      const { messages } = await (await second.client()).chatHistory({ contextId: "hook:c1", last: 100 });
      await second.stop(5000);

      expect(await lines(state.marker)).toEqual(["ran"]);
      const keys = (text: string) => [
        ...new Set(
          receiver.replies.filter((reply) => reply.text === text).map((reply) => reply.idempotencyKey),
        ),
      ];
      // Keys are named after the run's trigger message, the same on both workers.
      const keyName = String(keys("Working on it…")[0]).replace(/:0:0$/, "");
      expect(keys("Working on it…")).toEqual([`${keyName}:0:0`]);
      expect(keys(answer)).toEqual([`${keyName}:1:0`]);
      expect(receiver.replies.filter((reply) => reply.text === "unexpected")).toEqual([]);
      // Step 0's model call and tools ran once, on the first worker; only step 1 was asked again.
      expect(
        model.calls.filter((call) => !call.messages.some((m) => m.text.includes("memory extractor"))),
      ).toHaveLength(3);
      expect(records.find((record) => record.type === "run")).toMatchObject({ worker: first.workerId });
      expect(records.filter((record) => record.type === "attempt")).toEqual([
        expect.objectContaining({ attempt: 2, fromStep: 1, reason: "restart", worker: second.workerId }),
      ]);
      expect(records.filter((record) => record.type === "step").map((record) => record.step)).toEqual([0, 1]);
      expect(records.filter((record) => record.type === "end")).toEqual([
        expect.objectContaining({ outcome: "completed", steps: 2 }),
      ]);
      const assistant = messages.filter((message) => message.role === "assistant");
      expect(assistant).toHaveLength(1);
      expect(
        assistant[0]?.parts.flatMap((part) => (part.type === "dynamic-tool" ? [part.toolName] : [])),
      ).toEqual(["chat_send", "shell_exec"]);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 180_000);
});
