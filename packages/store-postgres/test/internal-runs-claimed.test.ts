import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { postEvent, startReplyReceiver } from "./webhook-traffic.js";
import { createWorkerCluster } from "./worker-cluster.js";

const secret = "internal-runs-secret-0123456789abcd";

describe("no run outside a claim: a background job's follow-up on two workers over PostgreSQL", () => {
  const cleanups = cleanupsAfterAll();

  it("runs the follow-up as a claimed event, never beside another run of the chat, in its chat and thread", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const model = await startOpenAICompatibleServer({
      respond: async (call: ScriptedCall): Promise<ScriptedReply | string> => {
        const system = call.messages.find((message) => message.role === "system")?.text ?? "";
        if (system.includes("memory extractor")) return JSON.stringify({ entries: [] });
        const last = call.messages.at(-1);
        if (last?.role === "system" && last.text.includes("[shell-exit]"))
          return last.text.includes("built") ? "Your job finished: built." : "unexpected";
        if (last?.role === "tool") return "Started the job.";
        if (last?.text.includes("start the job"))
          return {
            toolCalls: [{ toolName: "shell_start", input: { command: "sleep 2; echo built", yield_ms: 50 } }],
          };
        // A slow answer that the follow-up would overlap if it ran outside the chat's claim.
        await new Promise((resolve) => setTimeout(resolve, 3000));
        return "Still going.";
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
    const [a, b] = cluster.workers as [(typeof cluster.workers)[number], (typeof cluster.workers)[number]];
    const post = (eventId: string, text: string, port: number) =>
      postEvent(
        { eventId, chatId: "c1", threadId: "t1", text },
        { secret, pick: () => port, random: Math.random },
      );
    try {
      await cluster.startAll();
      await post("e1", "start the job", a.hookPort);
      await until(
        () => receiver.replies.some((reply) => reply.text === "Started the job."),
        "the job to start",
      );
      // Through the other worker while the job runs: its slow run and the follow-up compete for the chat.
      await post("e2", "status?", b.hookPort);
      const followUp = await until(
        () => receiver.replies.find((reply) => reply.text.includes("Your job finished")),
        "the follow-up reply",
      );
      await until(() => receiver.replies.some((reply) => reply.text === "Still going."), "the status reply");
      expect(followUp).toMatchObject({ chatId: "c1", threadId: "t1", text: "Your job finished: built." });

      // The reply can reach the chat before its run's event is marked done: poll for the mark.
      const doneFollowUps = async () =>
        (
          await cluster.query<{ payload: string }>(
            "SELECT count(*)::text AS payload FROM downcity_inbox WHERE id LIKE 'internal:shell-exit:%' AND status = 'done'",
          )
        )[0]?.payload;
      await until(
        async () => (await doneFollowUps()) !== "0" || undefined,
        "the follow-up event marked done",
      );
      expect(await doneFollowUps()).toBe("1");
      const runs = (await (await a.client()).runs({ limit: 50 })).runs.filter((run) =>
        run.contextId.includes("c1"),
      );
      expect(runs.length).toBe(3);
      const ordered = [...runs].sort((x, y) => x.startedAt.localeCompare(y.startedAt));
      for (let index = 1; index < ordered.length; index++)
        expect(ordered[index]!.startedAt >= (ordered[index - 1]!.endedAt ?? "")).toBe(true);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 180_000);
});
