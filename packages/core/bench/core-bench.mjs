// Benchmarks for @downcity/core, each printed as a ratio against a raw baseline measured in the same run.
// Run: pnpm --filter @downcity/core bench (builds first). Not part of the test run.
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generateText, streamText } from "ai";
import { createAgentRuntime, createHistoryStore } from "../dist/index.js";
import { historyToModelMessages } from "../dist/internal.js";
import { createScriptedModel } from "../dist/scripted.js";
import { steadyPairs } from "./steady-pairs.mjs";

const root = await mkdtemp(join(tmpdir(), "downcity-bench-"));
const fmt = (ms) => `${ms.toFixed(3)} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// The cheapest history store (arrays in memory, no copies, no files): a runtime on it shows what the
// file store costs a turn.
function createMemoryHistoryStore() {
  const open = () => {
    let messages = [];
    let meta = {};
    const tail = (last) => messages.slice(last === undefined ? 0 : Math.max(0, messages.length - last));
    return {
      append: async (input) => void messages.push(...(Array.isArray(input) ? input : [input])),
      read: async (options = {}) => tail(options.last),
      readArchive: async () => [],
      meta: async () => structuredClone(meta),
      updateMeta: async (update) => {
        meta = (await update(structuredClone(meta))) ?? meta;
        return meta;
      },
      compact: async ({ keepLast, summarize }) => {
        if (messages.length <= keepLast) return undefined;
        const older = messages.slice(0, messages.length - keepLast);
        const summary = await summarize(older);
        const archiveId = `a${Date.now()}`;
        const metadata = { createdAt: new Date().toISOString(), kind: "summary", archiveId };
        const kept = messages.slice(older.length);
        messages = [
          {
            id: `summary-${archiveId}`,
            role: "assistant",
            parts: [{ type: "text", text: summary }],
            metadata,
          },
          ...kept,
        ];
        return { archiveId, archivedCount: older.length, keptCount: kept.length, summary };
      },
    };
  };
  const contexts = new Map();
  return {
    context: (id) => contexts.get(id) ?? contexts.set(id, open()).get(id),
    close: async () => {},
  };
}

async function time(fn, iterations) {
  const samples = [];
  for (let index = 0; index < iterations; index++) {
    const start = performance.now();
    await fn(index);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

// 1. Runtime turn vs bare generateText with the same zero-latency mock, in interleaved rounds
// (the order alternating) so a machine shared with other work loads both sides alike.
{
  const rounds = Number(process.env.CORE_BENCH_ROUNDS ?? 15);
  const perRound = 20;
  const bare = createScriptedModel([], { fallback: "ok" });
  const scripted = createScriptedModel([], { fallback: "ok" });
  const runtime = createAgentRuntime({ rootDir: join(root, "rt"), model: scripted.model });
  const inMemory = createScriptedModel([], { fallback: "ok" });
  const memoryRuntime = createAgentRuntime({
    rootDir: join(root, "rt-memory"),
    model: inMemory.model,
    sharedHistory: createMemoryHistoryStore(),
  });
  let turn = 0;
  let memoryTurn = 0;
  // CPU time of the process (all threads) a call, beside the wall time: what the machine's load inflates less.
  const bareCpu = [];
  const runtimeCpu = [];
  // The AI SDK's streamText with the same mock, its full stream read: what a streaming turn built on it
  // pays before any work of its own (the runtime's loop reads the provider's stream without it).
  const streamCpu = [];
  const withCpu = async (samples, fn) => {
    const before = process.cpuUsage();
    const wall = await fn();
    const used = process.cpuUsage(before);
    samples.push((used.user + used.system) / 1000 / perRound);
    return wall;
  };
  const bareP50 = () =>
    withCpu(bareCpu, () => time(() => generateText({ model: bare.model, prompt: "hi" }), perRound));
  const streamP50 = () =>
    withCpu(streamCpu, () =>
      time(async () => {
        for await (const _part of streamText({ model: bare.model, prompt: "hi" }).fullStream);
      }, perRound),
    );
  // streamText over each context's current history window (converted outside the timing) with an
  // abort signal, as a run would pass one: the AI SDK's cost at this runtime's prompt sizes.
  const windowCpu = [];
  const windowP50 = async () => {
    const windows = [];
    for (let index = 0; index < 10; index++)
      windows.push(await historyToModelMessages(await runtime.history(`c${index}`).read({ last: 201 })));
    return withCpu(windowCpu, () =>
      time(async (index) => {
        const messages = windows[index % 10];
        const abortSignal = new AbortController().signal;
        for await (const _part of streamText({ model: bare.model, messages, abortSignal }).fullStream);
      }, perRound),
    );
  };
  const runtimeP50 = () =>
    withCpu(runtimeCpu, () =>
      time(() => runtime.send({ contextId: `c${turn++ % 10}`, text: "hi" }), perRound),
    );
  const memoryCpu = [];
  const memoryP50 = () =>
    withCpu(memoryCpu, () =>
      time(() => memoryRuntime.send({ contextId: `c${memoryTurn++ % 10}`, text: "hi" }), perRound),
    );
  await bareP50();
  await runtimeP50();
  await streamP50();
  await windowP50();
  await memoryP50();
  bareCpu.length = 0;
  memoryCpu.length = 0;
  runtimeCpu.length = 0;
  streamCpu.length = 0;
  windowCpu.length = 0;
  const bareRounds = [];
  const runtimeRounds = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      bareRounds.push(await bareP50());
      runtimeRounds.push(await runtimeP50());
    } else {
      runtimeRounds.push(await runtimeP50());
      bareRounds.push(await bareP50());
    }
    await streamP50();
    await windowP50();
    await memoryP50();
    // The scripted models keep every call for tests (and the mock model under them every call's
    // options, with what the run hung on them): a benchmark drops them.
    for (const model of [bare, scripted, inMemory]) {
      model.calls.length = 0;
      model.model.doStreamCalls.length = 0;
      model.model.doGenerateCalls.length = 0;
    }
  }
  await runtime.close();
  await memoryRuntime.close();
  const cpuRatios = runtimeCpu.map((value, index) => value / bareCpu[index]);
  console.log(
    `runtime turn CPU time ${fmt(median(runtimeCpu))} vs bare generateText ${fmt(median(bareCpu))} a call (process CPU, all threads) -> median ${median(cpuRatios).toFixed(1)}x`,
  );
  const streamRatios = streamCpu.map((value, index) => value / bareCpu[index]);
  console.log(
    `bare streamText CPU time ${fmt(median(streamCpu))} a call -> median ${median(streamRatios).toFixed(1)}x bare generateText (the AI SDK's streaming call; the runtime's loop reads the provider's stream directly)`,
  );
  const windowRatios = windowCpu.map((value, index) => value / bareCpu[index]);
  const ownRatios = runtimeCpu.map((value, index) => value / windowCpu[index]);
  console.log(
    `streamText over the contexts' history windows (with an abort signal) CPU time ${fmt(median(windowCpu))} a call -> median ${median(windowRatios).toFixed(1)}x bare generateText; the runtime turn is ${median(ownRatios).toFixed(2)}x that`,
  );
  const fileShares = runtimeCpu.map((value, index) => value - memoryCpu[index]);
  console.log(
    `runtime turn on an in-memory history store (arrays, no files) CPU time ${fmt(median(memoryCpu))} a call -> median ${median(memoryCpu.map((value, index) => value / bareCpu[index])).toFixed(1)}x bare generateText; the file store's share of a turn ${fmt(median(fileShares))} (median of rounds)`,
  );
  const ratios = runtimeRounds.map((value, index) => value / bareRounds[index]);
  const sorted = [...ratios].sort((a, b) => a - b);
  console.log(
    `runtime turn (1 fdatasync + prompt build) ${fmt(median(runtimeRounds))} p50 vs bare generateText ${fmt(median(bareRounds))} over ${rounds} interleaved rounds -> median ${median(ratios).toFixed(1)}x (middle half of rounds ${sorted[Math.floor((rounds - 1) / 4)].toFixed(1)}x to ${sorted[Math.floor(((rounds - 1) * 3) / 4)].toFixed(1)}x; target <= 10x; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`,
  );
}

// 1b. The same comparison at steady state, each side in a process of its own (bench/steady-turn.mjs),
// warmed first; the processes alternate (which goes first alternates too), so load changes reach both.
{
  const pairs = Number(process.env.CORE_BENCH_PAIRS ?? 4);
  const loadBefore = loadavg()[0];
  const results = steadyPairs(root, ["bare", "turn"], pairs);
  const sides = { bare: { wall: [], cpu: [] }, turn: { wall: [], cpu: [] } };
  const ratios = { wall: [], cpu: [] };
  for (const result of results) {
    for (const kind of ["wall", "cpu"]) {
      sides.bare[kind].push(result.bare[kind]);
      sides.turn[kind].push(result.turn[kind]);
      ratios[kind].push(result.turn[kind] / result.bare[kind]);
    }
  }
  const spread = (values) => `${values.map((value) => `${value.toFixed(1)}x`).join(", ")}`;
  console.log(
    `steady state, a process a side: runtime turn ${fmt(median(sides.turn.wall))} p50 vs bare generateText ${fmt(median(sides.bare.wall))} -> median ${median(ratios.wall).toFixed(1)}x over ${pairs} pairs (${spread(ratios.wall)}; target <= 10x); CPU ${fmt(median(sides.turn.cpu))} vs ${fmt(median(sides.bare.cpu))} a call -> ${median(ratios.cpu).toFixed(1)}x (load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores)`,
  );
}

// 2. History append (durable) vs raw open + appendFile + fdatasync + close, in interleaved rounds.
{
  const rounds = Number(process.env.CORE_BENCH_ROUNDS ?? 15);
  const batch = 40;
  const line = {
    id: "x",
    role: "user",
    parts: [{ type: "text", text: "hello ".repeat(20) }],
    metadata: { createdAt: "" },
  };
  const rawPath = join(root, "raw.jsonl");
  let written = 0;
  const raw = async () => {
    const start = performance.now();
    for (let index = 0; index < batch; index++) {
      const handle = await open(rawPath, "a");
      await handle.write(`${JSON.stringify({ ...line, id: `r${written++}` })}\n`);
      await handle.datasync();
      await handle.close();
    }
    return batch / ((performance.now() - start) / 1000);
  };
  const store = createHistoryStore({ dir: join(root, "append") });
  const stored = async () => {
    const start = performance.now();
    for (let index = 0; index < batch; index++) await store.append({ ...line, id: `s${written++}` });
    return batch / ((performance.now() - start) / 1000);
  };
  const rawRates = [];
  const storeRates = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      rawRates.push(await raw());
      storeRates.push(await stored());
    } else {
      storeRates.push(await stored());
      rawRates.push(await raw());
    }
  }
  store.close();
  const ratios = storeRates.map((value, index) => value / rawRates[index]);
  console.log(
    `history append ${median(storeRates).toFixed(0)}/s vs raw appendFile+fdatasync ${median(rawRates).toFixed(0)}/s over ${rounds} interleaved rounds -> median ${median(ratios).toFixed(2)}x (target >= 0.5x)`,
  );
}

// 3. Building the model context must stay flat as history grows (tail read, not whole file).
{
  const results = [];
  for (const count of [1000, 10000, 100000]) {
    const dir = join(root, `ctx${count}`);
    const store = createHistoryStore({ dir });
    await store.append({
      id: "seed",
      role: "user",
      parts: [{ type: "text", text: "seed" }],
      metadata: { createdAt: "" },
    });
    const lines = [];
    for (let index = 0; index < count; index++) {
      lines.push(
        JSON.stringify({
          id: `m${index}`,
          role: index % 2 ? "assistant" : "user",
          parts: [{ type: "text", text: `message ${index} ${"lorem ipsum ".repeat(8)}` }],
          metadata: { createdAt: "" },
        }),
      );
    }
    await writeFile(store.path, `${lines.join("\n")}\n`);
    const ms = await time(async () => historyToModelMessages(await store.read({ last: 200 })), 30);
    results.push([count, ms]);
  }
  const base = results[0][1];
  for (const [count, ms] of results) {
    console.log(
      `model context from ${String(count).padStart(6)} stored messages: ${fmt(ms)} (${(ms / base).toFixed(2)}x the 1k case)`,
    );
  }
}

await rm(root, { recursive: true, force: true });
