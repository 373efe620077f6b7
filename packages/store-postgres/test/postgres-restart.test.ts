import { type OpenAICompatibleServer, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { postSigned, seededRandom, until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { startChatFlood } from "./chat-flood.js";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";
import { scriptedAck } from "./scripted-ack.js";
import { checkReplies, type ReplyReceiver, startReplyReceiver } from "./webhook-traffic.js";
import { createWorkerCluster, delay, type WorkerCluster } from "./worker-cluster.js";

// Faults of the database under real daemons: a server of its own (the other tests' server stays up)
// is restarted mid-flood, then one worker's connections are terminated while it is in transactions.
// The default run floods 200 events; `pnpm soak` (FAULT_EVENTS=1000) the full 1,000.
const seed = Number(process.env.FAULT_SEED ?? Date.now() % 2 ** 31);
const totalEvents = Number(process.env.FAULT_EVENTS ?? 200);
const chats = totalEvents >= 1000 ? 50 : 20;
const workerCount = 3;
const leaseMs = 3000;
const secret = "fault-secret-0123456789abcdef";
const downEvent = JSON.stringify({
  eventId: "while-down",
  chatId: "chat-down",
  text: "event while-down",
  chatType: "direct",
  userId: "user-chat-down",
});

describe("PostgreSQL faults under three workers", () => {
  const cleanups = cleanupsAfterAll();

  it(
    `answers ${totalEvents} events exactly once and in order across a server restart and killed connections (seed ${seed})`,
    async () => {
      const server: TestPostgres = await startTestPostgres();
      cleanups.push(() => server.stop());
      const receiver: ReplyReceiver = await startReplyReceiver(secret);
      cleanups.push(receiver.close);
      const model: OpenAICompatibleServer = await startOpenAICompatibleServer({ respond: scriptedAck(50) });
      cleanups.push(() => model.close());
      const cluster = await createWorkerCluster({
        adminUrl: server.url(),
        workers: workerCount,
        modelUrl: model.url,
        hook: { url: receiver.url, secret },
        leaseMs,
        maxConcurrency: 4,
      });
      cleanups.push(() => cluster.close());
      try {
        await run(cluster, server, receiver);
      } catch (error) {
        cluster.keep();
        throw new Error(
          `${(error as Error).message}\n(seed ${seed}; folders kept)\n${await cluster.logTails(25)}`,
          { cause: error },
        );
      }
    },
    totalEvents >= 1000 ? 900_000 : 300_000,
  );
});

async function run(cluster: WorkerCluster, server: TestPostgres, receiver: ReplyReceiver) {
  const random = seededRandom(seed);
  await cluster.startAll();
  const flood = startChatFlood({
    total: totalEvents,
    chats,
    secret,
    receiver,
    random,
    ports: () => cluster.workers.map((worker) => worker.hookPort),
  });
  const answered = () => receiver.answered().size;

  // Fault 1: the server restarts (immediate shutdown, as a crash) while every worker has work in hand.
  await until(() => answered() >= Math.floor(totalEvents / 4), "a quarter of the replies", {
    timeoutMs: 120_000,
  });
  const claimed = await cluster.query<{ n: number }>(
    "SELECT count(DISTINCT claimed_by)::int AS n FROM downcity_inbox WHERE status = 'pending' AND claimed_by IS NOT NULL",
  );
  const beforeRestart = answered();
  const restartAt = Date.now();
  let whileDown: { status: number; text: string } | undefined;
  await server.restart({
    immediate: true,
    downMs: 1000,
    // A platform posting while the database is down is told to come back later (no ack, so it redelivers).
    whileDown: async () => {
      whileDown = await postSigned(cluster.workers[0]?.hookPort as number, downEvent, secret);
    },
  });
  const redelivery = postSigned(cluster.workers[2]?.hookPort as number, downEvent, secret);
  const upAt = Date.now();
  // Claims resume: replies keep coming after the restart.
  await until(() => answered() >= beforeRestart + 20, "replies after the restart", { timeoutMs: 60_000 });
  const resumedMs = Date.now() - upAt;

  // Fault 2: one worker's connections are terminated, several times, until one was in a transaction.
  await until(() => answered() >= Math.floor(totalEvents / 2), "half of the replies", { timeoutMs: 120_000 });
  const victim = cluster.workers[1] as (typeof cluster.workers)[number];
  let terminated = 0;
  let inTransaction = 0;
  for (let round = 0; round < 40 && inTransaction === 0 && answered() < totalEvents - 20; round++) {
    const [killed] = await cluster.query<{ all: number; xact: number }>(
      `SELECT count(*)::int AS all, count(*) FILTER (WHERE xact_start IS NOT NULL AND state <> 'idle')::int AS xact
         FROM (SELECT pid, xact_start, state, pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE application_name = $1 AND datname = current_database()) t`,
      [`downcity:${victim.pid}`],
    );
    terminated += killed?.all ?? 0;
    inTransaction += killed?.xact ?? 0;
    await delay(50);
  }

  await flood.done;
  expect(whileDown?.status, "an event posted while the database was down").toBe(503);
  expect((await redelivery)?.status, "its redelivery once the database is back").toBe(202);
  // Every flood event and the one posted while the server was down (the receiver counts both).
  await until(
    () =>
      receiver.answered().has("while-down") &&
      [...flood.acknowledged].every((eventId) => receiver.answered().has(eventId)),
    "a reply to every acknowledged event",
    { timeoutMs: 120_000 },
  ).catch(() => {});
  for (const worker of cluster.workers)
    expect(await worker.running(), `worker ${worker.index} alive`).toBe(true);
  await Promise.all(cluster.workers.map((worker) => worker.stop(5000)));

  const unanswered = [...flood.acknowledged].filter((eventId) => !receiver.answered().has(eventId));
  expect(unanswered, "acknowledged, never answered").toEqual([]);
  expect(
    receiver.replies.filter((reply) => reply.replyToMessageId === "while-down").map((reply) => reply.text),
  ).toEqual(["ack while-down"]);
  expect(flood.unexpected).toEqual([]);
  expect(receiver.badSignatures).toEqual([]);
  expect(flood.acknowledged.size).toBe(totalEvents);
  const floodReplies = receiver.replies.filter((reply) => reply.replyToMessageId !== "while-down");
  const { problems, sameKeyDuplicates } = checkReplies(flood.sent, floodReplies, (id) => `ack ${id}`);
  const keys = await cluster.query<{ key: string; status: string; worker: string | null }>(
    "SELECT key, status, worker FROM downcity_outbox ORDER BY seq",
  );
  expect(
    problems.join("\n"),
    `exactly one distinct reply per acknowledged event, per-chat order; outbox keys of the events named:\n${keys
      .filter((row) => problems.some((problem) => row.key.startsWith(`hook:${problem.split(":")[0]}:`)))
      .map((row) => `${row.key} ${row.status} ${row.worker}`)
      .join("\n")}`,
  ).toBe("");
  const inbox = await cluster.query("SELECT status, count(*)::int AS n FROM downcity_inbox GROUP BY status");
  expect(inbox).toEqual([{ status: "done", n: totalEvents + 1 }]);
  const outbox = await cluster.query(
    "SELECT status, count(*)::int AS n FROM downcity_outbox GROUP BY status",
  );
  expect(outbox).toEqual([{ status: "sent", n: totalEvents + 1 }]);
  // A run the outage cut off stores its steps marked failed; each event has one answer beside those.
  const [history] = await cluster.query<{ users: number; assistants: number; failed: number }>(
    `SELECT count(*) FILTER (WHERE message->>'role' = 'user')::int AS users,
            count(*) FILTER (WHERE message->>'role' = 'assistant'
                             AND message->'metadata'->>'failed' IS NULL)::int AS assistants,
            count(*) FILTER (WHERE message->'metadata'->>'failed' IS NOT NULL)::int AS failed
       FROM downcity_history`,
  );
  expect({ users: history?.users, assistants: history?.assistants }).toEqual({
    users: totalEvents + 1,
    assistants: totalEvents + 1,
  });
  expect(claimed[0]?.n, "workers holding claims at the restart").toBeGreaterThan(0);
  expect(terminated, "connections of the victim terminated").toBeGreaterThan(0);
  console.info(
    `postgres faults (seed ${seed}): ${totalEvents} events over ${chats} chats, ${workerCount} workers; ` +
      `restart took ${upAt - restartAt} ms with ${claimed[0]?.n} workers holding claims, replies resumed ${resumedMs} ms after; ` +
      `${terminated} connections of worker 1 terminated (${inTransaction} in a transaction); ` +
      `${flood.redelivered()} events redelivered to another worker, ${sameKeyDuplicates} same-key resends, ` +
      `${history?.failed} failed-run records in history`,
  );
}
