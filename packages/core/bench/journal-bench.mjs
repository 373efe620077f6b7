// Run journal costs, each as a ratio against a baseline measured in the same run, interleaved so a
// machine shared with other work loads both sides alike (pnpm --filter @downcity/core bench).
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createAgentRuntime, openFileRunJournal } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";
import { steadyPairs } from "./steady-pairs.mjs";

const root = await mkdtemp(join(tmpdir(), "downcity-journal-bench-"));
const rounds = Number(process.env.JOURNAL_BENCH_ROUNDS ?? 15);
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * q)];
const median = (values) => quantile(values, 0.5);
const ms = (value) => `${value.toFixed(3)} ms`;

/**
 * A runtime over the zero-latency scripted model, with or without a journal: `true` is the file
 * journal, a function builds a stand-in journal from the project folder.
 */
function runtimeOf(name, journaled, fallback = "ok") {
  const scripted = createScriptedModel([], { fallback });
  const rootDir = join(root, name);
  const journal =
    typeof journaled === "function"
      ? journaled(rootDir)
      : journaled
        ? openFileRunJournal({ rootDir })
        : undefined;
  const runtime = createAgentRuntime({ rootDir, model: scripted.model, ...(journal ? { journal } : {}) });
  scriptedOf.set(runtime, scripted);
  return runtime;
}

// Each runtime's scripted model: its record of calls is cleared after every turn, since the stand-in
// (unlike a provider) keeps every call's options, and with them whatever the run hung on its abort
// signal: kept for the whole bench, that is garbage the collector must trace on every turn.
const scriptedOf = new WeakMap();

/** One turn: its wall time and the process's CPU time (all threads), in ms. */
async function turn(runtime, index) {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await runtime.send({ contextId: `c${index % 10}`, text: "hi" });
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  const scripted = scriptedOf.get(runtime);
  scripted.calls.length = 0;
  scripted.model.doStreamCalls.length = 0;
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** The median CPU time (us) of creating and closing an empty file, 200 times in a new folder of the bench's. */
function fileCreationCpu(name) {
  const dir = join(root, name);
  mkdirSync(dir);
  const samples = [];
  for (let index = 0; index < 200; index++) {
    const before = process.cpuUsage();
    closeSync(openSync(join(dir, `${index}.jsonl`), "ax"));
    const used = process.cpuUsage(before);
    samples.push(used.user + used.system);
  }
  return median(samples);
}

const percent = (value) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}%`;
const spread = (overheads) =>
  `median ${percent(median(overheads))} (middle half of rounds ${percent(quantile(overheads, 0.25))} to ${percent(quantile(overheads, 0.75))})`;

// 1. A turn on the zero-latency model with and without the file journal (target: at most +10%).
// Turns alternate one by one (which side goes first alternates too), so a load spike lands on both
// sides alike; each round compares the medians of its 20 turns a side.
{
  const plain = runtimeOf("plain", false);
  const journaled = runtimeOf("journaled", true);
  for (let index = 0; index < 20; index++) {
    await turn(plain, index);
    await turn(journaled, index);
  }
  const loadBefore = loadavg()[0];
  const rows = { plain: { wall: [], cpu: [] }, journaled: { wall: [], cpu: [] } };
  const wallOverheads = [];
  const cpuOverheads = [];
  for (let round = 0; round < rounds; round++) {
    const samples = { plain: { wall: [], cpu: [] }, journaled: { wall: [], cpu: [] } };
    for (let index = 0; index < 20; index++) {
      const order = (round + index) % 2 === 0 ? ["plain", "journaled"] : ["journaled", "plain"];
      for (const side of order) {
        const sample = await turn(side === "plain" ? plain : journaled, index);
        samples[side].wall.push(sample.wall);
        samples[side].cpu.push(sample.cpu);
      }
    }
    for (const side of ["plain", "journaled"]) {
      rows[side].wall.push(median(samples[side].wall));
      rows[side].cpu.push(median(samples[side].cpu));
    }
    wallOverheads.push((median(samples.journaled.wall) / median(samples.plain.wall) - 1) * 100);
    cpuOverheads.push((median(samples.journaled.cpu) / median(samples.plain.cpu) - 1) * 100);
  }
  await plain.close();
  await journaled.close();
  const load = `load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`;
  console.log(
    `turn CPU time with journal ${ms(median(rows.journaled.cpu))} vs without ${ms(median(rows.plain.cpu))} p50 (process CPU, all threads) over ${rounds} rounds -> overhead ${spread(cpuOverheads)}; target <= 10%`,
  );
  console.log(
    `turn wall time with journal ${ms(median(rows.journaled.wall))} vs without ${ms(median(rows.plain.wall))} p50 over ${rounds} rounds -> overhead ${spread(wallOverheads)}; target <= 10% (${load})`,
  );
}

// 1b. The same turn at steady state, each side in a process of its own (bench/steady-turn.mjs: warmed
// with thousands of turns, then 15 rounds of 20): in one process the runtimes share compiled code
// and each one's garbage is collected during the others' turns. The processes alternate. Beside the
// journaled turn, `file-floor`: the turn plus a file per run created, given one short line and closed
// as the run ends (no recorder, no middleware): the least that the journal's layout (a file per run,
// `.downcity/runs/<date>/<requestId>.jsonl`) costs a turn on this machine's filesystem. And
// `journaled-fsync`: the journaled turn with an fdatasync at every step boundary, as the contract
// words it (the shipped journal syncs only where tools ran; a tool-less step only has to outlive the
// process): what the budget is measured against when read to the letter.
{
  const pairs = Number(process.env.JOURNAL_BENCH_PAIRS ?? 4);
  const loadBefore = loadavg()[0];
  const sides = ["turn", "file-floor", "journaled", "journaled-fsync"];
  const compared = sides.slice(1);
  const overheads = Object.fromEntries(compared.map((side) => [side, { wall: [], cpu: [], main: [] }]));
  for (const result of steadyPairs(root, sides, pairs))
    for (const side of compared)
      for (const kind of ["wall", "cpu", "main"])
        if (result.turn[kind] !== undefined)
          overheads[side][kind].push((result[side][kind] / result.turn[kind] - 1) * 100);
  const each = (values) => values.map(percent).join(", ");
  const main = (side) =>
    overheads[side].main.length > 0
      ? `, main thread's CPU ${percent(median(overheads[side].main))} (${each(overheads[side].main)})`
      : "";
  const load = `load average ${loadBefore.toFixed(1)} -> ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`;
  console.log(
    `steady state, a process a side: turn with the file journal vs without -> wall p50 ${percent(median(overheads.journaled.wall))} (${each(overheads.journaled.wall)}), CPU ${percent(median(overheads.journaled.cpu))} (${each(overheads.journaled.cpu)})${main("journaled")} over ${pairs} rounds; target <= 10% (${load})`,
  );
  console.log(
    `steady state, the journal's layout alone (a file per run, one line, created and closed at the run's end; no recording) vs no file -> wall p50 ${percent(median(overheads["file-floor"].wall))} (${each(overheads["file-floor"].wall)}), CPU ${percent(median(overheads["file-floor"].cpu))}${main("file-floor")}`,
  );
  console.log(
    `steady state, the file journal with an fdatasync at every step boundary (tool-less steps too, as the contract words it) vs no journal -> wall p50 ${percent(median(overheads["journaled-fsync"].wall))} (${each(overheads["journaled-fsync"].wall)}), CPU ${percent(median(overheads["journaled-fsync"].cpu))}${main("journaled-fsync")}`,
  );
}

// 1c. The same turn on a model that takes 50 ms to answer (a fast provider's first token): the
// journal's cost against a turn whose time is the model's, as a user waits for it. Turns alternate
// one by one, as in 1.
{
  const modelMs = 50;
  const reply = { text: "ok", delayMs: modelMs };
  const plain = runtimeOf("slow-plain", false, reply);
  const journaled = runtimeOf("slow-journaled", true, reply);
  const walls = { plain: [], journaled: [] };
  for (let index = 0; index < 60; index++) {
    for (const side of index % 2 === 0 ? ["plain", "journaled"] : ["journaled", "plain"]) {
      const sample = await turn(side === "plain" ? plain : journaled, index);
      if (index >= 10) walls[side].push(sample.wall);
    }
  }
  await plain.close();
  await journaled.close();
  const [withJournal, without] = [median(walls.journaled), median(walls.plain)];
  console.log(
    `turn wall time on a model answering in ${modelMs} ms, with journal ${ms(withJournal)} vs without ${ms(without)} p50 over 50 turns a side -> ${percent((withJournal / without - 1) * 100)} (${ms(withJournal - without)} a turn)`,
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

// 3. Where a journaled turn's extra time goes: stand-in journals that keep the recorder and its
// middleware but store less. `records dropped` stores nothing; `one shared file` writes each run's
// records to one file all runs share (the same bytes, written the same way, but no file created);
// `a file per run` creates a file per run as the file journal does, then writes and closes it.
{
  const unstored = {
    read: async () => undefined,
    list: async () => [],
    prune: async () => 0,
    close: async () => {},
  };
  const lines = (records) => records.map((record) => `${JSON.stringify({ v: 1, ...record })}\n`).join("");
  const sides = {
    "no journal": runtimeOf("split-plain", false),
    "records dropped": runtimeOf("split-dropped", () => ({ ...unstored, append: async () => {} })),
    "one shared file": runtimeOf("split-shared", (rootDir) => {
      mkdirSync(rootDir, { recursive: true });
      const fd = openSync(join(rootDir, "all-runs.jsonl"), "a");
      return { ...unstored, append: async (_requestId, records) => void writeSync(fd, lines(records)) };
    }),
    "a file per run": runtimeOf("split-per-run", (rootDir) => {
      mkdirSync(join(rootDir, "runs"), { recursive: true });
      const files = new Map();
      return {
        ...unstored,
        append: async (requestId, records) => {
          let fd = files.get(requestId);
          if (fd === undefined) {
            fd = openSync(join(rootDir, "runs", `${requestId}.jsonl`), "ax+");
            files.set(requestId, fd);
          }
          writeSync(fd, lines(records));
          if (records.some((record) => record.type === "end")) {
            closeSync(fd);
            files.delete(requestId);
          }
        },
      };
    }),
    "file journal": runtimeOf("split-file", true),
  };
  const names = Object.keys(sides);
  const createdBefore = fileCreationCpu("created-before");
  for (let index = 0; index < 20; index++) for (const name of names) await turn(sides[name], index);
  const cpu = Object.fromEntries(names.map((name) => [name, []]));
  for (let index = 0; index < rounds * 20; index++) {
    for (const name of index % 2 === 0 ? names : [...names].reverse())
      cpu[name].push((await turn(sides[name], index)).cpu);
  }
  for (const name of names) await sides[name].close();
  const base = median(cpu["no journal"]);
  console.log(
    `where a journaled turn's CPU time goes (p50 over ${rounds * 20} turns a side, vs ${ms(base)} without a journal): ${names
      .slice(1)
      .map((name) => `${name} ${percent((median(cpu[name]) / base - 1) * 100)}`)
      .join(", ")}`,
  );
  // A new file's cost is the filesystem's and varies with what was deleted near it lately (a test
  // run's or this bench's own clean-up): measured here, beside the split, so a large "a file per
  // run" share can be read against it.
  console.log(
    `creating an empty file in the bench's folder: ${createdBefore.toFixed(0)} us of CPU before these turns, ${fileCreationCpu("created-after").toFixed(0)} us after (median of 200; tens of us normally, hundreds for minutes after many files nearby were deleted: ext4 without a journal skips inodes freed in the last 1 to 6 minutes when it allocates one)`,
  );
}

await rm(root, { recursive: true, force: true });
