import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { type FakePollPlatform, pollAdapterSource, startFakePollPlatform } from "./fake-poll-platform.js";
import { scriptedAck } from "./scripted-ack.js";
import { type ClusterWorker, createWorkerCluster, type WorkerCluster } from "./worker-cluster.js";

// A polling adapter keeps its resume point in the channel's adapter state (`context.state`, as the
// Telegram adapter keeps its getUpdates offset and the QQ adapter its gateway session): after the
// poller is SIGKILLed, the worker that takes over starts from the offset the dead one saved.

/** The shared poll adapter, changed to load its offset from `context.state` and save it after each accept. */
const statefulAdapterSource = pollAdapterSource
  .replace(
    "let offset = 0;",
    'const saved = context.state ? await context.state.get("offset") : undefined;\n          let offset = saved && typeof saved.offset === "number" ? saved.offset : 0;',
  )
  .replace(
    "offset = update.updateId + 1;",
    'offset = update.updateId + 1;\n                await context.state?.set("offset", { offset });',
  );

describe("adapter state on PostgreSQL: the next poller resumes where the dead one stopped", () => {
  const cleanups = cleanupsAfterAll();

  it("starts the new poller at the offset the SIGKILLed one saved", async () => {
    expect(statefulAdapterSource).toContain('context.state.get("offset")');
    expect(statefulAdapterSource).toContain('context.state?.set("offset"');
    const platform = await startFakePollPlatform();
    cleanups.push(platform.close);
    const model = await startOpenAICompatibleServer({ respond: scriptedAck(10) });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 2,
      modelUrl: model.url,
      hook: { url: "http://127.0.0.1:9/replies", secret: "adapter-state-secret-0123456789" },
      channels: { poll: { adapter: "./poll-adapter.mjs", platform: platform.url, access: { dm: "open" } } },
      files: { "poll-adapter.mjs": statefulAdapterSource },
    });
    cleanups.push(() => cluster.close());
    try {
      await scenario(cluster, platform);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 180_000);
});

async function scenario(cluster: WorkerCluster, platform: FakePollPlatform) {
  await cluster.startAll();
  const byPid = new Map(cluster.workers.map((worker) => [worker.pid as number, worker]));
  const poller = await until(
    () => byPid.get(platform.polls.at(-1)?.pid ?? -1),
    "one worker polling the platform",
  );
  for (const index of [1, 2, 3])
    platform.push({ eventId: `e${index}`, chatId: `c${index}`, text: `event e${index}` });
  await until(() => ["e1", "e2", "e3"].every((id) => platform.answered().has(id)), "e1-e3 answered");
  // The dead poller's last poll asked from 4: it had saved the offset before polling again.
  await until(
    () => platform.polls.some((poll) => poll.pid === poller.pid && poll.offset === 4),
    "the poller polling from offset 4",
  );
  await poller.kill();
  const successor = cluster.workers.find((worker) => worker !== poller) as ClusterWorker;
  const firstPoll = await until(
    () => platform.polls.find((poll) => poll.pid === successor.pid),
    "the other worker taking over the poll",
    { timeoutMs: 30_000 },
  );
  expect(firstPoll.offset, "the successor's first poll starts at the saved offset").toBe(4);
  const stored = await cluster.query<{ value: { offset: number } }>(
    "SELECT value FROM downcity_adapter_state WHERE channel = 'poll' AND key = 'offset'",
  );
  expect(stored[0]?.value).toEqual({ offset: 4 });
  platform.push({ eventId: "e4", chatId: "c4", text: "event e4" });
  await until(() => platform.answered().has("e4"), "e4 answered by the successor");
  expect(platform.sends.filter((send) => send.replyToMessageId === "e4").map((send) => send.pid)).toEqual([
    successor.pid,
  ]);
}
