import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { seededRandom, until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { type FakePollPlatform, pollAdapterSource, startFakePollPlatform } from "./fake-poll-platform.js";
import { scriptedAck } from "./scripted-ack.js";
import { checkReplies } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster, delay, type WorkerCluster } from "./worker-cluster.js";

// A polling channel (a project-local adapter long-polling a fake platform) on three workers: only
// the one holding the channel's poller lock polls; SIGKILL it and another takes over.
// POLLER_FAILOVER_SEED replays a run (which worker's turn it is does not depend on it; the chats do).
const seed = Number(process.env.POLLER_FAILOVER_SEED ?? Date.now() % 2 ** 31);
const workerCount = 3;
const leaseMs = 3000;
const chats = 8;
// The poller lock is retried every second; the dead poller's connection closes with its process.
const takeoverBoundMs = 6000;

describe("poller failover: one worker polls a polling channel, another takes over when it dies", () => {
  const cleanups = cleanupsAfterAll();

  it(`polls from exactly one worker, hands over after a SIGKILL and answers every update once (seed ${seed})`, async () => {
    const platform = await startFakePollPlatform();
    cleanups.push(platform.close);
    const model = await startOpenAICompatibleServer({
      respond: scriptedAck(20),
    });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: workerCount,
      modelUrl: model.url,
      // Nothing is posted to the webhook channel here; its replies would go nowhere.
      hook: { url: "http://127.0.0.1:9/replies", secret: "poller-failover-secret-0123456789" },
      leaseMs,
      channels: { poll: { adapter: "./poll-adapter.mjs", platform: platform.url, access: { dm: "open" } } },
      files: { "poll-adapter.mjs": pollAdapterSource },
    });
    cleanups.push(() => cluster.close());
    try {
      await run(cluster, platform);
    } catch (error) {
      cluster.keep();
      throw new Error(
        `${(error as Error).message}\n(seed ${seed}; folders and database kept)\n${await cluster.logTails(25)}`,
        { cause: error },
      );
    }
  }, 120_000);
});

async function run(cluster: WorkerCluster, platform: FakePollPlatform) {
  const random = seededRandom(seed);
  await cluster.startAll();
  const workers = cluster.workers;
  const byPid = new Map(workers.map((worker) => [worker.pid as number, worker]));
  const pollChannel = async (worker: ClusterWorker) =>
    (await worker.channels()).channels.find((channel) => channel.name === "poll");
  const pollState = async (worker: ClusterWorker) => (await pollChannel(worker))?.state;

  // Election: once polling started, watch for three seconds: one pid, one of the workers.
  await until(() => platform.polls.length > 0, "a first poll", { timeoutMs: 20_000 });
  await delay(3000);
  const pollersBefore = [...new Set(platform.polls.map((poll) => poll.pid))];
  expect(pollersBefore, "pids seen polling before the kill").toHaveLength(1);
  const poller = byPid.get(pollersBefore[0] as number);
  expect(poller, `poller pid ${pollersBefore[0]} is one of the workers`).toBeDefined();
  const victim = poller as ClusterWorker;
  const statesBefore = await Promise.all(workers.map(pollState));
  expect(statesBefore).toEqual(workers.map((worker) => (worker === victim ? "connected" : "standby")));
  for (const worker of workers) {
    const hook = (await worker.channels()).channels.find((channel) => channel.name === "hook");
    expect(hook?.state, `webhook channel on worker ${worker.index}`).toBe("connected");
  }

  // Updates: per chat in order. Phase 1 is answered before the kill; phase 2 is pushed right before
  // it (some in the dead poller's hands, some not yet fetched); phase 3 only after it.
  const sent = new Map<string, { chatId: string; order: number }>();
  const counters = new Array<number>(chats).fill(0);
  const push = (count: number) => {
    for (let index = 0; index < count; index++) {
      const chat = Math.floor(random() * chats);
      const order = counters[chat] ?? 0;
      counters[chat] = order + 1;
      const eventId = `p${chat}-${order}`;
      sent.set(eventId, { chatId: `chat-${chat}`, order });
      platform.push({ eventId, chatId: `chat-${chat}`, text: `event ${eventId}` });
    }
  };
  const allAnswered = (what: string, timeoutMs: number) =>
    until(() => [...sent.keys()].every((eventId) => platform.answered().has(eventId)), what, {
      timeoutMs,
    });
  push(40);
  await allAnswered("the replies to the updates before the kill", 30_000);

  push(20);
  await delay(Math.floor(random() * 40));
  const killedAt = await victim.kill();
  push(40);
  const takeover = await until(
    () => platform.polls.find((poll) => poll.at >= killedAt && poll.pid !== victim.pid),
    "another worker to poll",
    { timeoutMs: 30_000, intervalMs: 5 },
  );
  const takeoverMs = takeover.at - killedAt;
  const successor = byPid.get(takeover.pid);
  expect(successor, `new poller pid ${takeover.pid} is one of the workers`).toBeDefined();
  await allAnswered("a reply to every update", 60_000).catch(() => {});
  // Keep watching a little: the third worker must stay on standby.
  await delay(2000);
  const survivors = workers.filter((worker) => worker !== victim);
  const channelsAfter = await Promise.all(survivors.map(pollChannel));
  const statesAfter = channelsAfter.map((channel) => channel?.state);
  const refetched = channelsAfter.reduce((sum, channel) => sum + (channel?.counts.duplicate ?? 0), 0);
  // Taken before the stops: a stopping poller gives the lock back, and the standby may then poll
  // for the few milliseconds until its own stop. Standbys stop first for the same reason.
  const pollsAfterKill = platform.polls.filter((poll) => poll.at > killedAt);
  const overlaps = [...platform.overlaps];
  for (const worker of [...survivors].sort((a, b) => Number(a === successor) - Number(b === successor)))
    await worker.stop(5000);

  const unanswered = [...sent.keys()].filter((eventId) => !platform.answered().has(eventId));
  expect(unanswered, "updates never answered").toEqual([]);
  const { problems, sameKeyDuplicates } = checkReplies(sent, platform.sends, (eventId) => `ack ${eventId}`);
  expect(problems, "exactly one distinct reply per update, per-chat order").toEqual([]);
  const pollersAfter = [
    ...new Set(pollsAfterKill.filter((poll) => poll.pid !== victim.pid).map((poll) => poll.pid)),
  ];
  expect(pollersAfter, "live pids seen polling after the kill").toEqual([takeover.pid]);
  // The fake runs in this process: a poll the victim sent just before the SIGKILL may be read a
  // moment after it. Its one-at-a-time loop allows at most one such poll, right at the kill.
  const lateFromVictim = pollsAfterKill.filter((poll) => poll.pid === victim.pid);
  expect(lateFromVictim.length, "victim polls read after the kill").toBeLessThanOrEqual(1);
  expect(lateFromVictim.every((poll) => poll.at - killedAt < 1000)).toBe(true);
  expect(overlaps, "two workers with a poll open at once").toEqual([]);
  expect(statesAfter).toEqual(survivors.map((worker) => (worker === successor ? "connected" : "standby")));
  expect(takeoverMs, "ms from the SIGKILL to the first poll of another worker").toBeLessThanOrEqual(
    takeoverBoundMs,
  );
  const inbox = await cluster.query<{ status: string; n: number }>(
    "SELECT status, count(*)::int AS n FROM downcity_inbox GROUP BY status",
  );
  expect(inbox).toEqual([{ status: "done", n: sent.size }]);
  const repliesBySender = survivors
    .concat(victim)
    .map((worker) => `${platform.sends.filter((send) => send.pid === worker.pid).length}`)
    .join("/");
  console.info(
    `poller failover (seed ${seed}): ${workerCount} workers, poller worker ${victim.index} (pid ${victim.pid}) SIGKILLed; ` +
      `worker ${successor?.index} (pid ${takeover.pid}) polled ${takeoverMs} ms later; ${sent.size} updates answered once ` +
      `(${refetched} fetched again by the new poller and deduped, ${sameKeyDuplicates} same-key resends), ` +
      `replies sent by survivors/victim ${repliesBySender}`,
  );
}
