import { type ScriptedCall, type ScriptedReply, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { postEvent, type ReplyReceiver, startReplyReceiver } from "./webhook-traffic.js";
import { type ClusterWorker, createWorkerCluster, delay, type WorkerCluster } from "./worker-cluster.js";

// Scheduled tasks on three workers of one agent: a task created through A is listed everywhere and
// fires exactly once per schedule across the three (one worker holds the scheduler lease), also
// when that worker is SIGKILLed just before a fire; each result reaches the chat once, as a claimed
// task-notice event.
const secret = "shared-tasks-secret-0123456789abcdef";
const periodSeconds = 10;

/** What the model saw: the scheduled time of every task run, and the run id of every notice. */
interface Witness {
  runs: string[];
  notices: string[];
  /** When the model saw each run (by scheduled time). */
  seenAt: Map<string, number>;
  /** Runs (by scheduled time) the model answers only after 8 s. */
  slow: Set<string>;
}

function taskModel(witness: Witness) {
  return async (call: ScriptedCall): Promise<ScriptedReply | string> => {
    const system = call.messages.find((message) => message.role === "system")?.text ?? "";
    if (system.includes("memory extractor")) return JSON.stringify({ entries: [] });
    const last = call.messages.at(-1)?.text ?? "";
    const run = /^\[Task run\] .*scheduled for (\S+)\)\./m.exec(last);
    if (run?.[1]) {
      witness.runs.push(run[1]);
      witness.seenAt.set(run[1], Date.now());
      if (witness.slow.has(run[1])) await delay(8000);
      return `tick ${run[1]}`;
    }
    const notice = /Task "Tick" \(tick\) finished \(cron run (\S+)\)/.exec(last);
    if (notice?.[1]) {
      witness.notices.push(notice[1]);
      return `notice ${notice[1]}`;
    }
    const eventId = /event (\S+)/.exec(last)?.[1];
    return eventId ? `ack ${eventId}` : "ok";
  };
}

describe("scheduled tasks shared through PostgreSQL by three workers", () => {
  const cleanups = cleanupsAfterAll();

  it("fires a task created through A exactly once per schedule, also when its scheduler worker is SIGKILLed before a fire or during a run", async () => {
    const receiver = await startReplyReceiver(secret);
    cleanups.push(receiver.close);
    const witness: Witness = { runs: [], notices: [], seenAt: new Map(), slow: new Set() };
    const model = await startOpenAICompatibleServer({ respond: taskModel(witness) });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 3,
      modelUrl: model.url,
      hook: { url: receiver.url, secret },
      startTimeoutMs: 90_000,
      configure: (config) => {
        config.tasks = { schedulerLeaseMs: 3000 };
      },
    });
    cleanups.push(() => cluster.close());
    try {
      await cluster.startAll();
      await scenario(cluster, receiver, witness);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 420_000);
});

/** The worker holding the scheduler lease (its id is `<hostname>:<project folder>`). */
async function leader(cluster: WorkerCluster): Promise<ClusterWorker | undefined> {
  const rows = await cluster.query<{ owner: string }>(
    "SELECT owner FROM downcity_task_scheduler WHERE until >= clock_timestamp()",
  );
  const owner = rows[0]?.owner;
  return cluster.workers.find((worker) => owner?.endsWith(`:${worker.rootDir}`));
}

/** The fires after `since` (ISO instants), oldest first. */
const firesAfter = (witness: Witness, since: number) =>
  witness.runs.filter((at) => Date.parse(at) > since).sort();

/** The next schedule instant at least `marginMs` from now. */
function nextFireAtLeast(marginMs: number): number {
  const period = periodSeconds * 1000;
  return Math.ceil((Date.now() + marginMs) / period) * period;
}

const iso = (at: number) => new Date(at).toISOString();
const runIdOf = (at: string) => at.replace(/:/g, "-").replace(".", "-");

async function scenario(cluster: WorkerCluster, receiver: ReplyReceiver, witness: Witness) {
  const [a, , c] = cluster.workers as [ClusterWorker, ClusterWorker, ClusterWorker];
  // Alice writes once, so her chat exists on the platform side.
  await postEvent(
    { eventId: "hello", chatId: "alice", text: "event hello" },
    { secret, pick: () => a.hookPort, random: Math.random },
  );
  await until(() => receiver.replies.some((reply) => reply.text === "ack hello"), "alice's hello answered");

  const created = await (await a.client()).servicesCommand({
    service: "task",
    action: "create",
    payload: {
      id: "tick",
      title: "Tick",
      when: `*/${periodSeconds} * * * * *`,
      timezone: "UTC",
      notify: "hook:alice",
      body: "Say tick.",
    },
  });
  expect(created.result).toMatchObject({ id: "tick", notify: "hook:alice" });
  const createdAt = Date.now();
  const listed = await (await c.client()).servicesCommand({ service: "task", action: "list", payload: {} });
  expect((listed.result as { tasks: Array<{ id: string }> }).tasks.map((task) => task.id)).toEqual(["tick"]);

  // Two fires under the first scheduler.
  await until(() => (firesAfter(witness, createdAt).length >= 2 ? true : undefined), "two fires", {
    timeoutMs: 60_000,
  });
  const first = await killBeforeFire(cluster, witness);
  await killDuringRun(cluster, witness, first);
  const fires = checkFiresOnce(witness, createdAt);
  await checkNotices(cluster, receiver, witness, fires);
}

/**
 * SIGKILLs the scheduling worker 1.5 s before a fire (the next fire if a busy machine oversleeps
 * the moment); another worker must take over and make that fire. Returns the killed worker.
 */
async function killBeforeFire(cluster: WorkerCluster, witness: Witness): Promise<ClusterWorker> {
  const first = await until(() => leader(cluster), "a scheduler lease holder");
  let target = nextFireAtLeast(4000);
  for (;;) {
    await delay(target - 1500 - Date.now());
    if (Date.now() < target - 1000) break;
    target = nextFireAtLeast(4000);
  }
  const killedAt = await first.kill();
  expect(killedAt, "killed before the fire").toBeLessThan(target);
  await until(
    () => (firesAfter(witness, target).length >= 2 ? true : undefined),
    "two fires after the one the killed worker never made",
    { timeoutMs: 60_000 },
  );
  expect(witness.runs).toContain(iso(target));
  console.info(
    `scheduler worker ${first.index} SIGKILLed ${target - killedAt} ms before a fire; the fire ran ${
      (witness.seenAt.get(iso(target)) ?? Number.NaN) - target
    } ms after its time (3 s lease)`,
  );
  return first;
}

/**
 * SIGKILLs the next scheduling worker while a run is under way (the model holds it 8 s): the run is
 * not made again, the worker that takes the lease marks it interrupted, and the schedule goes on.
 */
async function killDuringRun(cluster: WorkerCluster, witness: Witness, first: ClusterWorker) {
  const second = await until(() => leader(cluster), "a new scheduler lease holder");
  expect(second.index).not.toBe(first.index);
  const target = nextFireAtLeast(3000);
  witness.slow.add(iso(target));
  await until(() => witness.seenAt.has(iso(target)), "the slow run under way", { timeoutMs: 60_000 });
  await second.kill();
  await until(
    () => (firesAfter(witness, target).length >= 2 ? true : undefined),
    "two fires after the run the SIGKILL cut",
    { timeoutMs: 60_000 },
  );
  const third = await until(() => leader(cluster), "the last worker holding the lease");
  expect([first.index, second.index]).not.toContain(third.index);
  const [cut] = await cluster.query<{ status: string; worker: string; message: string }>(
    `SELECT record->>'status' AS status, record->>'worker' AS worker, record->'error'->>'message' AS message
     FROM downcity_task_runs WHERE task_id = 'tick' AND run_id = $1`,
    [runIdOf(iso(target))],
  );
  expect(cut?.status).toBe("interrupted");
  expect(cut?.worker.endsWith(`:${second.rootDir}`), `${cut?.worker} ran it`).toBe(true);
  expect(cut?.message).toContain("stopped renewing its lease");
}

/** Every schedule instant from the first fire on was run exactly once; returns them. */
function checkFiresOnce(witness: Witness, createdAt: number): string[] {
  const fires = firesAfter(witness, createdAt);
  const expected: string[] = [];
  for (let at = Date.parse(fires[0] ?? ""); at <= Date.parse(fires.at(-1) ?? ""); at += periodSeconds * 1000)
    expected.push(iso(at));
  expect(fires).toEqual(expected);
  return fires;
}

/** Each succeeded run's result reached alice's chat once, through the inbox (a claimed task-notice event). */
async function checkNotices(
  cluster: WorkerCluster,
  receiver: ReplyReceiver,
  witness: Witness,
  fires: string[],
) {
  const runs = await cluster.query<{ run_id: string; status: string }>(
    "SELECT run_id, record->>'status' AS status FROM downcity_task_runs WHERE task_id = 'tick'",
  );
  const succeeded = runs.filter((run) => run.status === "succeeded").map((run) => run.run_id);
  expect(succeeded.length).toBeGreaterThanOrEqual(fires.length - 2);
  await until(
    () => succeeded.every((runId) => receiver.replies.some((reply) => reply.text === `notice ${runId}`)),
    "every succeeded run announced in alice's chat",
    { timeoutMs: 60_000 },
  );
  const notices = await cluster.query<{ id: string; context_id: string }>(
    "SELECT id, context_id FROM downcity_inbox WHERE id LIKE 'internal:task-notice:tick:%'",
  );
  for (const runId of succeeded) {
    // One visible reply (one idempotency key) per notice, in alice's chat. A notice whose run a
    // SIGKILL cut short may reach the model again on the next owner, never the chat twice.
    expect(witness.notices, `the model saw the notice of ${runId}`).toContain(runId);
    const replies = receiver.replies.filter((reply) => reply.text === `notice ${runId}`);
    expect(new Set(replies.map((reply) => reply.idempotencyKey)).size, `replies to ${runId}`).toBe(1);
    expect(new Set(replies.map((reply) => reply.chatId))).toEqual(new Set(["alice"]));
    expect(notices.filter((row) => row.id === `internal:task-notice:tick:${runId}`)).toEqual([
      { id: `internal:task-notice:tick:${runId}`, context_id: "hook:alice" },
    ]);
  }
}
