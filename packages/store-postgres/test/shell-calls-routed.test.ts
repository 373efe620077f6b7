import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster } from "./worker-cluster.js";

const secret = "shell-calls-routed-secret-0123456789";
const marker = "routed-marker-7f3a";

describe("shell calls routed to the session's worker (two real daemons on PostgreSQL)", () => {
  const cleanups = cleanupsAfterAll();

  it("pins the chat at the job's start; a run on B reads and closes the job A holds, with A's real output", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    let shellId: string | undefined;
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        const asked = call.messages.findLast((message) => message.role === "user")?.text ?? "";
        if (last?.role === "tool") {
          if (asked.includes("start the job")) {
            shellId = last.text.match(/sh_[a-z0-9]+/)?.[0];
            return { text: "job started" };
          }
          return { text: `tool said: ${last.text}` };
        }
        if (asked.includes("start the job"))
          return {
            toolCalls: [{ toolName: "shell_start", input: { command: `echo ${marker}; exec sleep 600` } }],
          };
        if (asked.includes("read the job"))
          return { toolCalls: [{ toolName: "shell_read", input: { shell_id: shellId, cursor: 0 } }] };
        if (asked.includes("close the job"))
          return { toolCalls: [{ toolName: "shell_close", input: { shell_id: shellId } }] };
        return { text: "ok" };
      },
    });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      // Beats every 20 s: the pin seen right after the start's reply comes from the start itself.
      leaseMs: 60_000,
    });
    cleanups.push(() => cluster.close());
    const [a, b] = cluster.workers as [ClusterWorker, ClusterWorker];
    const post = (worker: ClusterWorker, eventId: string, chatId: string, text: string) =>
      postSigned(
        worker.hookPort,
        JSON.stringify({ eventId, chatId, chatType: "direct", userId: "u1", text }),
        secret,
      );
    const workerOf = async (contextId: string) => {
      const [row] = await cluster.query<{ worker: string }>(
        `SELECT record->>'worker' AS worker FROM downcity_run_records
          WHERE record->>'type' = 'run' AND record->>'contextId' = $1`,
        [contextId],
      );
      return row?.worker;
    };
    // Posts `text` through B in fresh chats until one of them runs on B (both workers claim from
    // the shared inbox), and returns that chat's reply.
    const askOnB = async (label: string, text: string) => {
      for (let round = 0; ; round++) {
        const chatId = `${label}-${round}`;
        expect((await post(b, `${label}-${round}`, chatId, text))?.status).toBe(202);
        const reply = await until(
          () => receiver.replies.find((entry) => entry.chatId === chatId),
          `the answer in chat ${chatId}`,
          { timeoutMs: 60_000 },
        );
        if ((await workerOf(`hook:${chatId}`)) === b.workerId) return reply.text;
        if (round >= 8) throw new Error(`no "${label}" run landed on worker B in ${round + 1} tries`);
      }
    };
    try {
      await a.start();
      expect((await post(a, "start", "dev", "start the job"))?.status).toBe(202);
      await until(() => receiver.replies.some((reply) => reply.text === "job started"), "the job's start", {
        timeoutMs: 60_000,
      });
      expect(shellId).toMatch(/^sh_/);
      // Pinned when the session started, not at the worker's next beat.
      const pins = await cluster.query<{ owner: string }>(
        "SELECT owner FROM downcity_lease WHERE context_id = 'affinity:hook:dev' AND until > clock_timestamp()",
      );
      expect(pins).toEqual([{ owner: a.workerId }]);
      await b.start();

      const read = await askOnB("read", "read the job");
      expect(read).toContain(marker);
      expect(read).not.toContain("SESSION_NOT_FOUND");

      const closed = await askOnB("close", "close the job");
      expect(closed).not.toContain("SESSION_NOT_FOUND");
      expect(closed).toMatch(/"status":"(killed|exited)"/);
      const calls = await cluster.query<{ tool: string; owner: string; requested_by: string }>(
        "SELECT tool, owner, requested_by FROM downcity_shell_calls WHERE answered_at IS NOT NULL ORDER BY requested_at",
      );
      expect(calls.map((call) => call.tool)).toEqual(["shell_read", "shell_close"]);
      expect(new Set(calls.map((call) => `${call.requested_by}->${call.owner}`))).toEqual(
        new Set([`${b.workerId}->${a.workerId}`]),
      );
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 300_000);
});
