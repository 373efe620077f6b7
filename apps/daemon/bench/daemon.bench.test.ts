import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { createScriptedModel, startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, describe, it } from "vitest";
import {
  createDaemonClient,
  type DaemonClient,
  initProject,
  readToken,
  runDaemon,
  startDaemonDetached,
  stopDaemon,
} from "../src/index.js";
import { createTempWorld } from "../test/temp-project.js";
import { bareFastifyProcessScript, startBareFastify } from "./bare-fastify-baseline.js";

const results: Record<string, number | string> = {};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const rssMb = (pid: number) => {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Math.round(Number(match?.[1] ?? 0) / 1024);
};
const round = (value: number) => Math.round(value * 10) / 10;
const ratio = (ours: number, baseline: number) => Math.round((ours / baseline) * 100) / 100;
const packageDir = new URL("..", import.meta.url);

/** Polls `/api/health` until it answers 200 (the daemon's own start-up check does the same). */
async function healthy(port: number): Promise<void> {
  const health = () =>
    fetch(`http://127.0.0.1:${port}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
  await until(health, `a healthy daemon on port ${port}`, 15_000);
}

/** Starts the bare-fastify process baseline and resolves once it answers its health check. */
async function startBareProcess(): Promise<{ pid: number; port: number; stop: () => void }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", bareFastifyProcessScript], {
    cwd: packageDir,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve(Number(text.trim()));
    });
    child.once("exit", (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  await healthy(port);
  return { pid: child.pid as number, port, stop: () => child.kill("SIGKILL") };
}

/** The one turn workload both the daemon and the baseline answer: latency, then turns per second. */
async function measureTurns(client: DaemonClient) {
  for (let warm = 0; warm < 50; warm++) await client.chatSend({ text: "warm up", contextId: "console:warm" });
  const latencies: number[] = [];
  for (let turn = 0; turn < 300; turn++) {
    const begin = performance.now();
    await client.chatSend({ text: `turn ${turn}`, contextId: `console:turn-${turn % 10}` });
    latencies.push(performance.now() - begin);
  }
  // Turns: each context waits for its reply before sending the next message.
  const total = 2000;
  const begin = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 100 }, async (_, context) => {
      while (next < total) {
        next++;
        await client.chatSend({ text: "throughput", contextId: `console:load-${context}` });
      }
    }),
  );
  return {
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    turnsPerSec: Math.round(total / ((performance.now() - begin) / 1000)),
  };
}

describe("daemon benchmarks", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    const figure = (name: string) => Number(results[name]);
    if (results.baselineColdStartToHealthMsP50 !== undefined) {
      results.ratioColdStart = ratio(
        figure("coldStartToHealthMsP50"),
        figure("baselineColdStartToHealthMsP50"),
      );
      results.ratioIdleRss = ratio(figure("idleRssMb"), figure("baselineIdleRssMb"));
    }
    if (results.baselineTurnMsP50 !== undefined) {
      results.ratioTurnP50 = ratio(figure("turnOverheadMsP50"), figure("baselineTurnMsP50"));
      results.ratioTurnP99 = ratio(figure("turnOverheadMsP99"), figure("baselineTurnMsP99"));
      results.ratioThroughputTurns = ratio(figure("throughputTurnsPerSec"), figure("baselineTurnsPerSec"));
    }
    results.machine = `${process.platform} ${process.arch}, node ${process.version}`;
    await writeFile(new URL("./results.json", import.meta.url), `${JSON.stringify(results, null, 2)}\n`);
    console.log(JSON.stringify(results, null, 2));
  });

  it("cold start, status wall time, idle RSS and RSS with 100 busy contexts (real processes)", async () => {
    const world = await createTempWorld("dc-bench-");
    cleanups.push(world.cleanup);
    const model = await startOpenAICompatibleServer({
      respond: () => ({ text: "busy reply", delayMs: 400 }),
    });
    cleanups.push(() => model.close());
    const rootDir = world.project();
    await initProject(rootDir, {
      llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
    });
    const config = JSON.parse(readFileSync(`${rootDir}/downcity.json`, "utf8"));
    config.lanes = { maxConcurrency: 100 };
    await writeFile(`${rootDir}/downcity.json`, JSON.stringify(config));
    // The shipped entry: dist/daemon-main.js, bundled by `tsup` (the bench script builds first).
    cleanups.push(() => stopDaemon({ rootDir, graceMs: 2000 }));

    const starts: number[] = [];
    let daemon = { pid: 0, host: "", port: 0 };
    for (let run = 0; run < 5; run++) {
      const begin = performance.now();
      daemon = await startDaemonDetached({ rootDir, env: world.env });
      starts.push(performance.now() - begin);
      if (run < 4) await stopDaemon({ rootDir, graceMs: 2000 });
    }
    results.coldStartToHealthMsP50 = round(percentile(starts, 50));
    const bareStarts: number[] = [];
    let bare = { pid: 0, port: 0, stop: () => {} };
    for (let run = 0; run < 5; run++) {
      const begin = performance.now();
      bare = await startBareProcess();
      bareStarts.push(performance.now() - begin);
      if (run < 4) bare.stop();
    }
    cleanups.push(async () => bare.stop());
    results.baselineColdStartToHealthMsP50 = round(percentile(bareStarts, 50));

    // `downcity status` wall time is measured on the real CLI binary: apps/cli/bench/status-wall-time.mjs.

    // Idle means idle: let start-up garbage settle before reading RSS (a measurement pause, not a sync).
    await sleep(500);
    results.idleRssMb = rssMb(daemon.pid);
    results.baselineIdleRssMb = rssMb(bare.pid);
    bare.stop();
    const token = (await readToken(world.env)) as string;
    const client = createDaemonClient({ host: daemon.host, port: daemon.port, token });
    let peak = 0;
    const sends = Array.from({ length: 100 }, (_, index) =>
      client.chatSend({ contextId: `console:busy-${index}`, text: "hello" }),
    );
    const sampling = (async () => {
      for (let sample = 0; sample < 20; sample++) {
        peak = Math.max(peak, rssMb(daemon.pid));
        await sleep(25);
      }
    })();
    await Promise.all([...sends, sampling]);
    peak = Math.max(peak, rssMb(daemon.pid));
    results.rss100BusyContextsMb = peak;
    // Stop here, not only in afterAll: a slow hook must never leave a detached daemon behind.
    await stopDaemon({ rootDir, graceMs: 2000 });
  });

  it("HTTP turn overhead (zero-latency model) and throughput over 100 contexts (in process)", async () => {
    const world = await createTempWorld("dc-bench-");
    cleanups.push(world.cleanup);
    const rootDir = world.project();
    await initProject(rootDir);
    const config = JSON.parse(readFileSync(`${rootDir}/downcity.json`, "utf8"));
    config.lanes = { maxConcurrency: 100 };
    await writeFile(`${rootDir}/downcity.json`, JSON.stringify(config));
    const scripted = createScriptedModel();
    const turns = 6000;
    for (let turn = 0; turn < turns; turn++) scripted.push("ok");
    const daemon = await runDaemon({
      rootDir,
      env: world.env,
      model: scripted.model,
      handleSignals: false,
      port: 0,
    });
    cleanups.push(() => daemon.close());
    const token = (await readToken(world.env)) as string;
    const client = createDaemonClient({ host: daemon.host, port: daemon.port, token });
    const ours = await measureTurns(client);
    results.turnOverheadMsP50 = ours.p50;
    results.turnOverheadMsP99 = ours.p99;
    results.throughputTurnsPerSec = ours.turnsPerSec;
    // Messages: 5 in flight per context, as busy chats send them; the lanes merge what arrives mid-run.
    const total = 2000;
    const begin = performance.now();
    await Promise.all(
      Array.from({ length: 100 }, async (_, context) => {
        for (let round = 0; round < total / 500; round++) {
          await Promise.all(
            Array.from({ length: 5 }, () =>
              client.chatSend({ text: "throughput", contextId: `console:burst-${context}` }),
            ),
          );
        }
      }),
    );
    results.throughputMsgPerSec = Math.round(total / ((performance.now() - begin) / 1000));
    await daemon.close();

    // Same-run baseline: the same client and workload against bare fastify doing the same fsyncs.
    const bare = await startBareFastify({ dir: world.project("bare") });
    cleanups.push(() => bare.close());
    const bareClient = createDaemonClient({ host: bare.host, port: bare.port, token });
    const baseline = await measureTurns(bareClient);
    results.baselineTurnMsP50 = baseline.p50;
    results.baselineTurnMsP99 = baseline.p99;
    results.baselineTurnsPerSec = baseline.turnsPerSec;
  });
});
