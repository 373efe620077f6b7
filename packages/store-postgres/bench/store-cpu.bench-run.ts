import { loadavg } from "node:os";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { seededRandom, until } from "@downcity/testkit";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import "../test/global-setup.js";
import { startChatFlood } from "../test/chat-flood.js";
import { scriptedAck } from "../test/scripted-ack.js";
import { type ReplyReceiver, startReplyReceiver } from "../test/webhook-traffic.js";
import { type ClusterRuntime, createWorkerCluster, prepareClusterRuntime } from "../test/worker-cluster.js";
import { cpuMeter } from "./cpu-usage.js";
import { createDaemonProfiler, type DaemonProfile } from "./daemon-profile.js";
import { recordResults } from "./record-results.js";

// Daemon CPU per event on the store path (issue 32: at most 5 ms): one worker answering a flood on
// PostgreSQL, beside the same worker on the file store (the same daemon, channel, model and
// traffic, with the default driver), alternated round by round in the same run. CPU is the daemon
// process's user + system time (what process.cpuUsage() reports, read from /proc so the process
// need not report it itself); the sampling profiler splits it by source file (through the bundles'
// source maps), so each store's own path is given in ms per event. Each chat posts its next event
// once the previous one was answered, so every event is one run on both stores (the file store
// would merge a chat's waiting events into the running lane). The verdict is the median round's:
// other load on the shared machine moves single rounds by several ms, and the spread is printed.
const events = Number(process.env.BENCH_CPU_EVENTS ?? 500);
const chats = 50;
const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 5);
const secret = "bench-cpu-secret-0123456789abcdef";
const targetMs = 5;

let runtime: ClusterRuntime;
let receiver: ReplyReceiver;
let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  runtime = await prepareClusterRuntime({ sourcemap: true });
  receiver = await startReplyReceiver(secret);
  model = await startOpenAICompatibleServer({ respond: scriptedAck(50) });
}, 120_000);
afterAll(async () => {
  await model?.close();
  await receiver?.close();
  await runtime?.dispose();
});

/** One worker on `store`, warmed up, then timed over `events`: CPU ms per event and its profile. */
async function measure(store: "postgres" | "files", round: number) {
  // Both daemons run under the sampling profiler (the same overhead).
  const profiler = await createDaemonProfiler(runtime.daemonEntry);
  const cluster = await createWorkerCluster({
    adminUrl: inject("postgresUrl"),
    workers: 1,
    modelUrl: model.url,
    hook: { url: receiver.url, secret },
    leaseMs: 15_000,
    maxConcurrency: 4,
    runtime: { ...runtime, daemonEntry: profiler.entry },
    configure: (config) => {
      if (store === "files") delete config.store;
    },
  });
  try {
    await cluster.startAll();
    const worker = cluster.workers[0] as (typeof cluster.workers)[number];
    const flood = async (prefix: string, total: number) => {
      const run = startChatFlood({
        total,
        chats,
        secret,
        receiver,
        random: seededRandom(round),
        ports: () => [worker.hookPort],
        prefix,
        oneAtATime: true,
      });
      await run.done;
      await until(() => [...run.acknowledged].every((id) => receiver.answered().has(id)), "every reply", {
        timeoutMs: 300_000,
        intervalMs: 10,
      });
    };
    await flood(`warm-${store}-${round}-`, 50);
    profiler.start();
    const meter = cpuMeter(() => [worker.pid as number]);
    const started = Date.now();
    await flood(`load-${store}-${round}-`, events);
    const ms = Date.now() - started;
    const cpu = meter.stop();
    const profile = await profiler.stop();
    const cpuMsPerEvent = (cpu.daemonCores * ms) / events;
    const storeShare = store === "postgres" ? profile.postgresShare : profile.fileStoreShare;
    process.stdout.write(
      `  ${store}, round ${round}: ${events} events in ${ms} ms, ${cpuMsPerEvent.toFixed(1)} ms CPU/event, ` +
        `store path ${(cpuMsPerEvent * storeShare).toFixed(1)} ms/event\n`,
    );
    return {
      perSecond: (events * 1000) / ms,
      cpuMsPerEvent,
      /** The store's own path: its share of the busy samples times the CPU per event. */
      storePathMs: cpuMsPerEvent * storeShare,
      /** The same with garbage collection shared out in proportion (an upper bound). */
      storePathWithGcMs: (cpuMsPerEvent * storeShare) / Math.max(0.01, 1 - profile.gcShare),
      profile,
      machineBusy: cpu.machineBusy,
      /** The 1-minute load average when the round ended. */
      load: (loadavg()[0] ?? 0).toFixed(1),
    };
  } finally {
    await cluster.close();
    await profiler.dispose();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** The statements a run sent per event, most first (over every connection: pool, LISTEN, events). */
function statementLines(profile: DaemonProfile, total: number): { perEvent: number; lines: string } {
  const sorted = [...profile.statements].sort((a, b) => b[1] - a[1]);
  const perEvent = sorted.reduce((sum, [, count]) => sum + count, 0) / total;
  // Every statement sent at least once per 20 events: the rest are polls and stragglers.
  const lines = sorted
    .filter(([, count]) => count / total >= 0.05)
    .map(([text, count]) => `    ${(count / total).toFixed(2).padStart(5)}  ${text}`)
    .join("\n");
  return { perEvent, lines };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** The median, least and most of one figure over the rounds. */
function spread(runs: Measured[], figure: (run: Measured) => number) {
  const values = runs.map(figure);
  return { median: median(values), least: Math.min(...values), most: Math.max(...values) };
}

/** The statements of every round of one store, added up (the count does not depend on the machine's load). */
function pooledStatements(runs: Measured[]): DaemonProfile {
  const statements = new Map<string, number>();
  for (const run of runs)
    for (const [text, count] of run.profile.statements)
      statements.set(text, (statements.get(text) ?? 0) + count);
  return { ...(runs[0] as Measured).profile, statements };
}

const roundLine = (run: Measured) =>
  `${run.perSecond.toFixed(1)}/s, ${run.cpuMsPerEvent.toFixed(1)} ms CPU/event, store path ${run.storePathMs.toFixed(1)} ms ` +
  `(machine ${Math.round(run.machineBusy * 100)} % busy, load ${run.load})`;

it(`daemon CPU per event on the store path: PostgreSQL beside the file store (${rounds} x ${events} events, 1 worker)`, async () => {
  const postgres: Measured[] = [];
  const files: Measured[] = [];
  for (let round = 0; round < rounds; round++) {
    // Which store goes first alternates, so a drift in the machine's load weighs on both alike.
    if (round % 2 === 0) postgres.push(await measure("postgres", round));
    files.push(await measure("files", round));
    if (round % 2 === 1) postgres.push(await measure("postgres", round));
  }
  const pgPath = spread(postgres, (run) => run.storePathMs);
  const pgWithGc = spread(postgres, (run) => run.storePathWithGcMs);
  const pgCpu = spread(postgres, (run) => run.cpuMsPerEvent);
  const filePath = spread(files, (run) => run.storePathMs);
  const fileCpu = spread(files, (run) => run.cpuMsPerEvent);
  const busy = median(postgres.map((run) => run.machineBusy));
  const verdict = pgPath.median <= targetMs ? "PASS" : "MISS";
  const statements = statementLines(pooledStatements(postgres), events * postgres.length);
  const range = (figure: { median: number; least: number; most: number }) =>
    `${figure.median.toFixed(1)} ms (rounds ${figure.least.toFixed(1)} to ${figure.most.toFixed(1)})`;
  const top =
    postgres[0]?.profile.topSources.map(([source, share]) => `${source} ${Math.round(share * 100)} %`) ?? [];
  process.stdout.write(
    `daemon CPU per event, ${rounds} rounds of ${events} events over ${chats} chats, 1 worker (4 runs at once), model 50 ms:\n` +
      postgres.map((run, round) => `  postgres   round ${round}: ${roundLine(run)}\n`).join("") +
      files.map((run, round) => `  file store round ${round}: ${roundLine(run)}\n`).join("") +
      `  -> median store path CPU per event (the store's share of the profile x the daemon's CPU per event): ` +
      `PostgreSQL ${range(pgPath)} of ${range(pgCpu)}; with garbage collection shared out ${range(pgWithGc)}; ` +
      `file store ${range(filePath)} of ${range(fileCpu)}\n` +
      `  -> target: at most ${targetMs} ms on the PostgreSQL store path (median round): ${verdict} (${pgPath.median.toFixed(1)} ms)\n` +
      `  statements per event on PostgreSQL (all rounds): ${statements.perEvent.toFixed(1)}\n${statements.lines}\n` +
      `  PostgreSQL daemon's busy samples by source (self, round 0): ${top.join(", ")}\n`,
  );
  const fixed = (value: number) => Number(value.toFixed(1));
  recordResults({
    cpuEvents: events,
    cpuRounds: rounds,
    cpuLoadAverage: postgres.map((run) => run.load).join(" "),
    postgresEventsPerSecond: fixed(median(postgres.map((run) => run.perSecond))),
    postgresCpuMsPerEvent: fixed(pgCpu.median),
    postgresStatementsPerEvent: fixed(statements.perEvent),
    postgresStorePathCpuMsPerEvent: fixed(pgPath.median),
    postgresStorePathCpuMsByRound: postgres.map((run) => run.storePathMs.toFixed(1)).join(" "),
    postgresStorePathWithGcCpuMsPerEvent: fixed(pgWithGc.median),
    fileStoreEventsPerSecond: fixed(median(files.map((run) => run.perSecond))),
    fileStoreCpuMsPerEvent: fixed(fileCpu.median),
    fileStorePathCpuMsPerEvent: fixed(filePath.median),
    storePathTarget: `${verdict} (median round at most ${targetMs} ms)`,
  });
  // A machine busy with other work inflates every CPU figure: the miss is printed and recorded,
  // and fails the run only when the machine had room.
  if (busy < 0.7) expect(pgPath.median).toBeLessThanOrEqual(targetMs);
}, 3_600_000);
