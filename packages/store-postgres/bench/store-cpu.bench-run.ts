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
// traffic, with the default driver), alternated in the same run. CPU is the daemon process's user
// + system time (what process.cpuUsage() reports, read from /proc so the process need not report
// it itself); the sampling profiler splits it by source file (through the bundles' source maps),
// so each store's own path is given in ms per event. Each chat posts its next event once the
// previous one was answered, so every event is one run on both stores (the file store would merge
// a chat's waiting events into the running lane).
const events = Number(process.env.BENCH_CPU_EVENTS ?? 300);
const chats = 50;
const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 2);
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
    };
  } finally {
    await cluster.close();
    await profiler.dispose();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;

/** The statements a run sent per event, most first (over every connection: pool, LISTEN, events). */
function statementLines(profile: DaemonProfile): { perEvent: number; lines: string } {
  const sorted = [...profile.statements].sort((a, b) => b[1] - a[1]);
  const perEvent = sorted.reduce((sum, [, count]) => sum + count, 0) / events;
  // Every statement sent at least once per 20 events: the rest are polls and stragglers.
  const lines = sorted
    .filter(([, count]) => count / events >= 0.05)
    .map(([text, count]) => `    ${(count / events).toFixed(2).padStart(5)}  ${text}`)
    .join("\n");
  return { perEvent, lines };
}

it(`daemon CPU per event on the store path: PostgreSQL beside the file store (${events} events, 1 worker)`, async () => {
  const postgres: Measured[] = [];
  const files: Measured[] = [];
  for (let round = 0; round < rounds; round++) {
    postgres.push(await measure("postgres", round));
    files.push(await measure("files", round));
  }
  // The least CPU of each: a burst of other load on the machine only ever adds.
  const least = (runs: Measured[]) => runs.reduce((a, b) => (b.cpuMsPerEvent < a.cpuMsPerEvent ? b : a));
  const [pg, file] = [least(postgres), least(files)];
  const verdict = pg.storePathMs <= targetMs ? "PASS" : "MISS";
  const statements = statementLines(pg.profile);
  const line = (runs: Measured[]) =>
    runs
      .map(
        (run) =>
          `${run.perSecond.toFixed(1)}/s, ${run.cpuMsPerEvent.toFixed(1)} ms CPU/event, store path ${run.storePathMs.toFixed(1)} ms (machine ${Math.round(run.machineBusy * 100)} % busy)`,
      )
      .join("; ");
  const top = pg.profile.topSources.map(([source, share]) => `${source} ${Math.round(share * 100)} %`);
  process.stdout.write(
    `daemon CPU per event, ${events} events over ${chats} chats, 1 worker (4 runs at once), model 50 ms, load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(" ")}:\n` +
      `  postgres  : ${line(postgres)}\n` +
      `  file store: ${line(files)}\n` +
      `  -> store path CPU per event (the store's share of the profile x the daemon's CPU per event): PostgreSQL ${pg.storePathMs.toFixed(1)} ms ` +
      `(${Math.round(pg.profile.postgresShare * 100)} % of ${pg.cpuMsPerEvent.toFixed(1)} ms; ${pg.storePathWithGcMs.toFixed(1)} ms with garbage collection, ` +
      `${Math.round(pg.profile.gcShare * 100)} %, shared out), file store ${file.storePathMs.toFixed(1)} ms (${Math.round(file.profile.fileStoreShare * 100)} % of ${file.cpuMsPerEvent.toFixed(1)} ms)\n` +
      `  -> target: at most ${targetMs} ms on the PostgreSQL store path: ${verdict} (${pg.storePathMs.toFixed(1)} ms)\n` +
      `  statements per event on PostgreSQL: ${statements.perEvent.toFixed(1)}\n${statements.lines}\n` +
      `  PostgreSQL daemon's busy samples by source (self): ${top.join(", ")}\n`,
  );
  recordResults({
    cpuEvents: events,
    cpuLoadAverage: loadavg()[0]?.toFixed(1) ?? "",
    postgresEventsPerSecond: Number(pg.perSecond.toFixed(1)),
    postgresCpuMsPerEvent: Number(pg.cpuMsPerEvent.toFixed(1)),
    postgresStatementsPerEvent: Number(statements.perEvent.toFixed(1)),
    postgresStorePathCpuMsPerEvent: Number(pg.storePathMs.toFixed(1)),
    postgresStorePathWithGcCpuMsPerEvent: Number(pg.storePathWithGcMs.toFixed(1)),
    fileStoreEventsPerSecond: Number(file.perSecond.toFixed(1)),
    fileStoreCpuMsPerEvent: Number(file.cpuMsPerEvent.toFixed(1)),
    fileStorePathCpuMsPerEvent: Number(file.storePathMs.toFixed(1)),
    storePathTarget: `${verdict} (at most ${targetMs} ms)`,
  });
  // A machine busy with other work inflates every CPU figure: the miss is printed and recorded,
  // and fails the run only when the machine had room.
  if (pg.machineBusy < 0.7) expect(pg.storePathMs).toBeLessThanOrEqual(targetMs);
}, 1_200_000);
