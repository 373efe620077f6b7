import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { createWorkerCluster } from "./worker-cluster.js";

const secret = "interrupted-runs-secret-0123456789ab";
const leaseMs = 3000;
const answer = "Checked after the restart.";

describe("runs list on PostgreSQL after a worker is SIGKILLed mid-run (two daemons)", () => {
  const cleanups = cleanupsAfterAll();

  it("shows the cut-off run interrupted (not running) until another worker resumes it, then completed", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const paths = { started: "", go: "" };
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        if (last?.role !== "tool") {
          // A slow tool: it runs until the test lets it go, so the worker dies while it runs. It outlives
          // the SIGKILLed worker, so it also ends once the cluster's folder is gone (a `go` written just
          // before the folder's removal could go unseen, leaving the loop behind for good).
          const command = `echo started >> '${paths.started}'; while [ ! -f '${paths.go}' ] && [ -f '${paths.started}' ]; do sleep 0.1; done`;
          return { toolCalls: [{ toolName: "shell_exec", input: { command, timeout_ms: 120_000 } }] };
        }
        return { text: last.text.includes("interrupted by a restart") ? answer : `unexpected: ${last.text}` };
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
    cleanups.push(() => writeFile(paths.go, ""));
    const [first, second] = cluster.workers as [
      (typeof cluster.workers)[number],
      (typeof cluster.workers)[number],
    ];
    try {
      await first.start();
      const body = JSON.stringify({
        eventId: "evt-cut-off",
        chatId: "c1",
        chatType: "direct",
        userId: "u1",
        text: "run the slow check",
      });
      expect((await postSigned(first.hookPort, body, secret))?.status).toBe(202);
      const firstClient = await first.client();
      // While the first worker lives and runs the tool, the run is running there.
      const [live] = await until(
        async () => {
          const { runs } = await firstClient.runs({ context: "hook:c1" });
          return runs.length === 1 && runs[0]?.status === "running" ? runs : undefined;
        },
        "the run to be listed as running",
        { timeoutMs: 60_000 },
      );
      expect(live?.worker).toBe(first.workerId);

      // Nobody may take the event over yet: an affinity lease of a third owner pins the context.
      await cluster.query(
        `INSERT INTO downcity_lease (context_id, owner, until)
         VALUES ('affinity:hook:c1', 'test-hold', clock_timestamp() + interval '10 minutes')`,
      );
      await second.start();
      await first.kill();
      const secondClient = await second.client();
      // Once the dead worker's claim and lease lapse, the open run is interrupted, on any worker.
      const [cutOff] = await until(
        async () => {
          const { runs } = await secondClient.runs({ context: "hook:c1" });
          return runs[0]?.status === "interrupted" ? runs : undefined;
        },
        "the cut-off run to be listed as interrupted",
        { timeoutMs: leaseMs + 30_000 },
      );
      expect(cutOff).toMatchObject({ requestId: live?.requestId, worker: first.workerId, attempts: 1 });
      expect((await secondClient.runs({ status: "running" })).runs).toEqual([]);
      expect((await secondClient.runs({ status: "interrupted" })).runs).toHaveLength(1);
      expect((await secondClient.run(String(live?.requestId))).summary.status).toBe("interrupted");

      // The pin goes: the second worker resumes the run under its id and finishes it.
      await cluster.query("DELETE FROM downcity_lease WHERE context_id = 'affinity:hook:c1'");
      await until(() => receiver.replies.some((reply) => reply.text === answer), "the answer", {
        timeoutMs: 60_000,
      });
      const [done] = await until(async () => {
        const { runs } = await secondClient.runs({ context: "hook:c1" });
        return runs[0]?.status === "completed" ? runs : undefined;
      }, "the run to be listed as completed");
      expect(done).toMatchObject({ requestId: live?.requestId, worker: second.workerId, attempts: 2 });
      expect((await secondClient.runs({})).runs).toHaveLength(1);
      expect((await secondClient.runs({ status: "running" })).runs).toEqual([]);
      expect(receiver.replies.filter((reply) => reply.text.startsWith("unexpected"))).toEqual([]);
      await second.stop(5000);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});
