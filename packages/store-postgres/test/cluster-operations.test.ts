import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll, isStepCall } from "./cluster-test-helpers.js";
import { startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster } from "./worker-cluster.js";

const secret = "cluster-operations-secret-0123456789";
const hello = "Hello from the cluster.";

const lastUserText = (call: ScriptedCall) =>
  call.messages.findLast((message) => message.role === "user")?.text ?? "";

describe("cluster-wide chat operations (three real daemons, one real PostgreSQL)", () => {
  const cleanups = cleanupsAfterAll();

  it("chat send on a busy worker answers with another worker's run; chat cancel and /stop on one worker stop a run on another, and a cancel that found nothing stops no later run", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    cleanups.push(async () => release());
    const held: string[] = [];
    let openCancels: (contextId: string) => Promise<number> = async () => 0;
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        if (!isStepCall(call)) return JSON.stringify({ entries: [] });
        const text = lastUserText(call);
        // A long run: its model call is held until the end of the test (a cancel ends it first).
        if (text.includes("work for a long time")) {
          held.push(text);
          await released;
          return { text: "finished the long work" };
        }
        // A message after a cancel that found nothing: held until no cancel request of its chat is open,
        // which on a sticky store is only once the worker running it has stopped it.
        if (text.includes("after the stop"))
          await until(async () => (await openCancels("hook:idle")) === 0, "no open cancel of the idle chat", {
            timeoutMs: 30_000,
          });
        return { text: hello };
      },
    });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 3,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      // The busy worker runs one event at a time, so it cannot run the chat message itself.
      configure: (config, index) => {
        if (index === 1) config.lanes = { maxConcurrency: 1 };
      },
    });
    cleanups.push(() => cluster.close());
    openCancels = async (contextId) =>
      (
        await cluster.query<{ open: number }>(
          "SELECT count(*)::int AS open FROM downcity_run_cancels WHERE context_id = $1 AND answered_by IS NULL",
          [contextId],
        )
      )[0]?.open ?? 0;
    const [a, b, c] = cluster.workers as [ClusterWorker, ClusterWorker, ClusterWorker];
    const post = (worker: ClusterWorker, eventId: string, chatId: string, text: string) =>
      postSigned(
        worker.hookPort,
        JSON.stringify({ eventId, chatId, chatType: "direct", userId: "u1", text }),
        secret,
      );
    const holderOf = async (eventId: string) =>
      (
        await cluster.query<{ claimed_by: string | null }>(
          "SELECT claimed_by FROM downcity_inbox WHERE id = $1 AND status = 'pending'",
          [`hook:${eventId}`],
        )
      )[0]?.claimed_by;
    const journalOf = async (eventId: string) => {
      const runs = await cluster.query<{ record: Record<string, unknown> }>(
        `SELECT r.record FROM downcity_run_records r
         WHERE r.request_id IN (SELECT request_id FROM downcity_run_records
                                WHERE record->>'type' = 'run' AND record->'eventIds' ? $1)
         ORDER BY r.seq`,
        [eventId],
      );
      return runs.map((row) => row.record);
    };
    try {
      // B alone takes the long run, so it is busy (one run at a time) when the others start.
      await b.start();
      expect((await post(b, "long-1", "long", "please work for a long time"))?.status).toBe(202);
      await until(() => held.length === 1, "the long run's model call", { timeoutMs: 60_000 });
      expect(await holderOf("long-1")).toBe(b.workerId);
      await a.start();
      await c.start();

      // B's live event stream (what the console shows) is open before the message goes in.
      const streamed: Array<{ type: string; worker?: string }> = [];
      const stream = new AbortController();
      cleanups.push(async () => stream.abort());
      const bClient = await b.client();
      let ready = false;
      const listening = (async () => {
        for await (const event of bClient.chatEvents("cli:ops", { signal: stream.signal })) {
          if (event.type === "ready") ready = true;
          else streamed.push(event as { type: string; worker?: string });
        }
      })().catch(() => {});
      await until(() => ready, "B's event stream");

      // chat send against B: B is busy, so A or C runs it; B waits through the store and answers.
      const reply = await bClient.chatSend({ text: "say hello", contextId: "cli:ops" });
      expect(reply.text).toBe(hello);
      const sendRun = await until(async () => {
        const [run] = await cluster.query<{ worker: string }>(
          "SELECT record->>'worker' AS worker FROM downcity_run_records WHERE record->>'type' = 'run' AND record->>'contextId' = 'cli:ops'",
        );
        return run;
      }, "the chat message's run record");
      expect([a.workerId, c.workerId]).toContain(sendRun.worker);
      // The run's live events reached B's stream from the worker that ran it.
      await until(() => streamed.some((event) => event.type === "run-end"), "the run's end on B's stream");
      expect(streamed.find((event) => event.type === "run-start")).toMatchObject({ worker: sendRun.worker });
      expect(streamed.find((event) => event.type === "run-end")).toMatchObject({
        worker: sendRun.worker,
        text: hello,
      });
      stream.abort();
      await listening;
      // The worker column: runs list (its run's worker) and the inbox (the busy worker's claim), from any worker.
      const runs = (await (await c.client()).runs({ context: "cli:ops" })).runs;
      expect(runs.map((run) => run.worker)).toEqual([sendRun.worker]);
      const inbox = await (await a.client()).servicesCommand({ service: "inbox", action: "list" });
      const entries = (inbox.result as { entries: Array<{ id: string; worker?: string }> }).entries;
      expect(entries.find((entry) => entry.id === "hook:long-1")?.worker).toBe(b.workerId);

      // A cancel when nothing runs (on B, busy with the long run) leaves nothing behind: the chat's
      // next message runs on A or C and answers, it is not stopped by that cancel.
      expect((await bClient.chatCancel({ contextId: "hook:idle" })).cancelled).toEqual([]);
      expect((await post(a, "idle-1", "idle", "say hello after the stop"))?.status).toBe(202);
      await until(
        () => receiver.replies.some((r) => r.chatId === "idle" && r.text === hello),
        "the idle chat's answer",
      );
      const idleEnd = await until(
        async () => (await journalOf("hook:idle-1")).find((record) => record.type === "end"),
        "the idle chat's run end",
      );
      expect(idleEnd).toMatchObject({ outcome: "completed" });
      // The requester closed its request as it answered: nothing was left open for a later run.
      expect(await openCancels("hook:idle")).toBe(0);
      expect((await journalOf("hook:idle-1")).find((record) => record.type === "run")?.worker).not.toBe(
        b.workerId,
      );

      // chat cancel on C stops B's run.
      const cancelled = await (await c.client()).chatCancel({ contextId: "hook:long" });
      expect(cancelled.cancelled).toEqual([{ contextId: "hook:long", requestId: expect.any(String) }]);
      const longEnd = await until(
        async () => (await journalOf("hook:long-1")).find((record) => record.type === "end"),
        "the cancelled run's end",
      );
      expect(longEnd).toMatchObject({ outcome: "aborted", reason: "cancelled" });
      expect((await journalOf("hook:long-1")).find((record) => record.type === "run")).toMatchObject({
        worker: b.workerId,
      });
      await until(() => receiver.replies.some((r) => r.chatId === "long"), "the cancel notice in the chat");

      // /stop in a chat, sent through a worker that does not run it, stops the run where it runs.
      expect((await post(a, "long-2", "long2", "again, work for a long time"))?.status).toBe(202);
      await until(() => held.length === 2, "the second long run's model call", { timeoutMs: 60_000 });
      const runner = await holderOf("long-2");
      const other = cluster.workers.find((worker) => worker.workerId !== runner) as ClusterWorker;
      expect((await post(other, "stop-2", "long2", "/stop"))?.status).toBe(202);
      await until(
        () => receiver.replies.some((r) => r.chatId === "long2" && r.text === "Stopped."),
        "the /stop answer",
      );
      const stoppedEnd = await until(
        async () => (await journalOf("hook:long-2")).find((record) => record.type === "end"),
        "the stopped run's end",
      );
      expect(stoppedEnd).toMatchObject({ outcome: "aborted", reason: "cancelled" });
      // Neither long run finished its work: both were stopped where they ran.
      expect(receiver.replies.filter((r) => r.text === "finished the long work")).toEqual([]);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});
