// Run journal costs, each as a ratio against a baseline measured in the same run, interleaved in
// rounds so a machine shared with other work loads both sides alike (pnpm --filter @downcity/core bench).
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createAgentRuntime, openFileRunJournal } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";

const root = await mkdtemp(join(tmpdir(), "downcity-journal-bench-"));
const rounds = Number(process.env.JOURNAL_BENCH_ROUNDS ?? 15);
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)];
const median = (values) => quantile(values, 0.5);
const ms = (value) => `${value.toFixed(3)} ms`;

/** A runtime over the zero-latency scripted model, with or without the file journal. */
function runtimeOf(name, journaled) {
  const scripted = createScriptedModel([], { fallback: "ok" });
  const rootDir = join(root, name);
  return createAgentRuntime({
    rootDir,
    model: scripted.model,
    ...(journaled ? { journal: openFileRunJournal({ rootDir }) } : {}),
  });
}

// CPU time (the process's, all threads) a turn of each round, by runtime: what machine load inflates less.
const cpuPerTurn = new Map();

/** Median time of `count` turns over ten contexts. */
async function turnsP50(runtime, count) {
  const samples = [];
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const start = performance.now();
    await runtime.send({ contextId: `c${index % 10}`, text: "hi" });
    samples.push(performance.now() - start);
  }
  const used = process.cpuUsage(before);
  const cpu = cpuPerTurn.get(runtime) ?? [];
  cpu.push((used.user + used.system) / 1000 / count);
  cpuPerTurn.set(runtime, cpu);
  return median(samples);
}

// 1. A turn on the zero-latency model with and without the file journal (target: at most +10%).
{
  const plain = runtimeOf("plain", false);
  const journaled = runtimeOf("journaled", true);
  await turnsP50(plain, 20);
  await turnsP50(journaled, 20);
  cpuPerTurn.clear();
  const without = [];
  const withJournal = [];
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so a load spike does not always land on the same side.
    const first = round % 2 === 0;
    const a = await turnsP50(first ? plain : journaled, 20);
    const b = await turnsP50(first ? journaled : plain, 20);
    without.push(first ? a : b);
    withJournal.push(first ? b : a);
  }
  await plain.close();
  await journaled.close();
  const plainCpu = cpuPerTurn.get(plain) ?? [];
  const journaledCpu = cpuPerTurn.get(journaled) ?? [];
  const cpuOverheads = journaledCpu.map((value, index) => (value / plainCpu[index] - 1) * 100);
  console.log(
    `turn CPU time with journal ${ms(median(journaledCpu))} vs without ${ms(median(plainCpu))} (process CPU, all threads) -> overhead median ${median(cpuOverheads).toFixed(1)}% (middle half of rounds ${quantile(cpuOverheads, 0.25).toFixed(1)}% to ${quantile(cpuOverheads, 0.75).toFixed(1)}%)`,
  );
  const overheads = withJournal.map((value, index) => (value / without[index] - 1) * 100);
  console.log(
    `turn with journal ${ms(median(withJournal))} p50 vs without ${ms(median(without))} over ${rounds} interleaved rounds -> overhead median ${median(overheads).toFixed(1)}% (middle half of rounds ${quantile(overheads, 0.25).toFixed(1)}% to ${quantile(overheads, 0.75).toFixed(1)}%; target <= 10%)`,
  );
}

// 2. Journal appends (one run, one record each, durable) vs raw open+write+fdatasync+close.
{
  const batch = 50;
  const record = {
    type: "tool-end",
    step: 0,
    toolCallId: "c",
    toolName: "t",
    output: { ok: true },
    durationMs: 1,
  };
  const rawPath = join(root, "raw.jsonl");
  const raw = async () => {
    const start = performance.now();
    for (let index = 0; index < batch; index++) {
      const handle = await open(rawPath, "a");
      await handle.write(`${JSON.stringify({ ...record, v: 1, at: new Date().toISOString() })}\n`);
      await handle.datasync();
      await handle.close();
    }
    return batch / ((performance.now() - start) / 1000);
  };
  const journal = openFileRunJournal({ rootDir: join(root, "append") });
  const at = new Date().toISOString();
  await journal.append("bench", [
    {
      type: "run",
      at,
      requestId: "bench",
      contextId: "c",
      messageIds: [],
      eventIds: [],
      origin: "user",
      settings: { maxSteps: 1, keepLast: 1 },
    },
  ]);
  const journaled = async () => {
    const start = performance.now();
    for (let index = 0; index < batch; index++)
      await journal.append("bench", [{ ...record, at: new Date().toISOString() }]);
    return batch / ((performance.now() - start) / 1000);
  };
  const rawRates = [];
  const journalRates = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      rawRates.push(await raw());
      journalRates.push(await journaled());
    } else {
      journalRates.push(await journaled());
      rawRates.push(await raw());
    }
  }
  await journal.close();
  const ratios = journalRates.map((value, index) => value / rawRates[index]);
  console.log(
    `journal append ${median(journalRates).toFixed(0)}/s vs raw appendFile+fdatasync ${median(rawRates).toFixed(0)}/s over ${rounds} interleaved rounds -> median ${median(ratios).toFixed(2)}x (middle half of rounds ${quantile(ratios, 0.25).toFixed(2)}x to ${quantile(ratios, 0.75).toFixed(2)}x; target >= 0.5x)`,
  );
}

await rm(root, { recursive: true, force: true });
