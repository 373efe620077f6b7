import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster } from "./worker-cluster.js";

const secret = "shell-affinity-secret-0123456789abcd";

describe("shell affinity on PostgreSQL (two real daemons)", () => {
  const cleanups = cleanupsAfterAll();

  it("runs a chat with a live shell session on the worker holding it, whichever worker received the message", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        const asked = call.messages.findLast((message) => message.role === "user")?.text ?? "";
        if (last?.role === "tool") return { text: "The dev server is running." };
        if (asked.includes("start the dev server"))
          return { toolCalls: [{ toolName: "shell_start", input: { command: "sleep 600" } }] };
        return { text: `noted: ${asked.match(/message (\w+)/)?.[1] ?? "?"}` };
      },
    });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
    });
    cleanups.push(() => cluster.close());
    const [a, b] = cluster.workers as [ClusterWorker, ClusterWorker];
    const post = (worker: ClusterWorker, eventId: string, text: string) =>
      postSigned(
        worker.hookPort,
        JSON.stringify({ eventId, chatId: "dev", chatType: "direct", userId: "u1", text }),
        secret,
      );
    try {
      // A alone starts the session, so it holds it.
      await a.start();
      expect((await post(a, "start", "start the dev server"))?.status).toBe(202);
      await until(
        () => receiver.replies.some((reply) => reply.text === "The dev server is running."),
        "the session's start",
        { timeoutMs: 60_000 },
      );
      const pin = await until(async () => {
        const [row] = await cluster.query<{ owner: string }>(
          "SELECT owner FROM downcity_lease WHERE context_id = 'affinity:hook:dev' AND until > clock_timestamp()",
        );
        return row;
      }, "the chat's affinity lease");
      expect(pin.owner).toBe(a.workerId);
      await b.start();

      // Every later message goes in through B, the idle worker; A runs each of them.
      const later = ["one", "two", "three", "four"];
      for (const [index, word] of later.entries()) {
        expect((await post(b, `later-${index}`, `message ${word}`))?.status).toBe(202);
        await until(
          () => receiver.replies.some((reply) => reply.text === `noted: ${word}`),
          `the answer to message ${word}`,
          { timeoutMs: 60_000 },
        );
      }
      const runs = await cluster.query<{ worker: string; event: string }>(
        `SELECT record->>'worker' AS worker, record->'eventIds'->>0 AS event FROM downcity_run_records
         WHERE record->>'type' = 'run' AND record->>'contextId' = 'hook:dev'`,
      );
      expect(runs).toHaveLength(later.length + 1);
      expect(new Set(runs.map((run) => run.worker))).toEqual(new Set([a.workerId]));
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});
