import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { type ReplyReceiver, startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster, delay, type WorkerCluster } from "./worker-cluster.js";

// Contacts, memory and usage shared through PostgreSQL by two workers: a fact remembered in a run
// on A is in the prompt of the next run on B; `chat_send to: "@alice"` works on B, which never
// saw Alice; the usage B reports counts A's calls too.
const secret = "shared-state-secret-0123456789abcdef";
const fact = "Alice's favourite colour is teal";

/** Which system prompts the model saw, per event id, to tell which runs had the fact in their prompt. */
const promptsSeen = new Map<string, string>();

/**
 * The scripted model: "remember" makes it call memory_remember, "tell alice" makes it chat_send to
 * @alice, "colour?" answers whether the fact was in the prompt; after a tool result it acks.
 */
async function respond(call: ScriptedCall): Promise<ScriptedReply | string> {
  await delay(10);
  const system = call.messages
    .filter((message) => message.role === "system")
    .map((message) => message.text)
    .join("\n");
  if (system.includes("memory extractor")) return JSON.stringify({ entries: [] });
  const last = call.messages.filter((message) => message.role === "user").at(-1)?.text ?? "";
  const eventId = /event (\S+)/.exec(last)?.[1] ?? "none";
  if (call.messages.at(-1)?.role === "tool") return { text: `ack ${eventId}` };
  promptsSeen.set(eventId, system);
  if (last.includes("remember"))
    return { toolCalls: [{ toolName: "memory_remember", input: { text: fact, scope: "context" } }] };
  if (last.includes("tell alice"))
    return {
      toolCalls: [{ toolName: "chat_send", input: { to: "@alice", text: `hello alice from ${eventId}` } }],
    };
  if (last.includes("colour?"))
    return { text: `ack ${eventId} ${system.includes(fact) ? "remembered teal" : "forgot"}` };
  return { text: `ack ${eventId}` };
}

describe("contacts, memory and usage shared through PostgreSQL by two workers", () => {
  const cleanups = cleanupsAfterAll();

  it("remembers on A for B, sends to @alice from B, and sums every worker's usage on B", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const model = await startOpenAICompatibleServer({ respond });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
    });
    cleanups.push(() => cluster.close());
    try {
      await scenario(cluster, receiver);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 240_000);
});

/** Posts one direct message from `user` in their own chat to `worker`'s webhook. */
async function post(worker: ClusterWorker, user: string, eventId: string, text: string) {
  const body = JSON.stringify({
    eventId,
    chatId: `chat-${user}`,
    chatType: "direct",
    userId: `user-${user}`,
    username: user,
    text: `event ${eventId} ${text}`,
  });
  const answer = await postSigned(worker.hookPort, body, secret);
  expect(answer?.status, `event ${eventId} acknowledged by worker ${worker.index}`).toBeLessThan(300);
}

const replyTo = (receiver: ReplyReceiver, eventId: string) =>
  until(
    () =>
      receiver.replies.find((reply) => reply.replyToMessageId === eventId && reply.text.startsWith("ack")),
    `the reply to ${eventId}`,
    { timeoutMs: 60_000 },
  );

async function scenario(cluster: WorkerCluster, receiver: ReplyReceiver) {
  const [a, b] = cluster.workers as [ClusterWorker, ClusterWorker];
  // Only A runs while Alice first writes: the fact is remembered, and Alice seen, on A alone.
  await a.start();
  const workerA = a.workerId;
  await post(a, "alice", "m1", "please remember my colour");
  await replyTo(receiver, "m1");
  await b.start();
  await a.stop();

  // B never saw Alice (its own contacts.json is empty): chat_send to "@alice" finds her in the store.
  await post(b, "bob", "c1", "tell alice hi");
  await replyTo(receiver, "c1");
  const toAlice = await until(
    () => receiver.replies.find((reply) => reply.text === "hello alice from c1"),
    "chat_send to @alice delivered from B",
    { timeoutMs: 30_000 },
  );
  expect(toAlice.chatId).toBe("chat-alice");

  // The next run of Alice's chat, on B, has the fact A remembered in its prompt.
  await post(b, "alice", "m2", "what is my colour?");
  const answer = await replyTo(receiver, "m2");
  expect(answer.text).toBe("ack m2 remembered teal");
  expect(promptsSeen.get("m2")).toContain(fact);

  // `downcity usage` (GET /api/usage) on B counts A's calls and its own, by worker.
  const usage = await until(
    async () => {
      const totals = await (await b.client()).usage();
      const workers = new Set(totals.byWorker.map((entry) => entry.workerId));
      return workers.has(workerA ?? "") && workers.has(b.workerId ?? "") ? totals : undefined;
    },
    "B's usage showing both workers",
    { timeoutMs: 30_000 },
  );
  const byWorker = new Map(usage.byWorker.map((entry) => [entry.workerId, entry.calls]));
  // m1 took two steps on A (the tool call, then the ack); c1 two and m2 one on B.
  expect(byWorker.get(workerA ?? "")).toBeGreaterThanOrEqual(2);
  expect(byWorker.get(b.workerId ?? "")).toBeGreaterThanOrEqual(3);
  expect(usage.calls).toBe([...byWorker.values()].reduce((sum, calls) => sum + calls, 0));
  const rows = await cluster.query<{ workers: string }>(
    "SELECT count(DISTINCT worker_id)::text AS workers FROM downcity_usage",
  );
  expect(rows[0]?.workers).toBe("2");
}
