// One side of a steady-state comparison, in a process of its own: `bare` (the AI SDK's generateText
// on the zero-latency scripted model), `turn` (a runtime turn on the same model, with its file
// store) or `journaled` (the same turn with the file run journal); core-bench compares the first two,
// journal-bench the last two. It warms its own code to V8's steady state first, then times rounds of 20 calls
// and prints one JSON line: each round's median wall time and CPU time a call, in ms.
// A process of its own, because in one process the two sides share compiled code (zod, the AI SDK's
// prompt handling): what one side ran decides how fast the other's shared functions were optimised.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generateText } from "ai";
import { createAgentRuntime, openFileRunJournal } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";

const side = process.argv[2];
if (!["bare", "turn", "journaled"].includes(side))
  throw new Error(`usage: node bench/steady-turn.mjs bare|turn|journaled (got ${side})`);
const rounds = Number(process.env.CORE_BENCH_ROUNDS ?? 15);
const warmCalls = Number(process.env.CORE_BENCH_WARMUP ?? 4000);
const perRound = 20;
// Under the caller's folder when it names one (`STEADY_ROOT`), which it removes once all its sides
// ran: a side that removed its thousands of files itself would make the next side's file creations
// dear (ext4 without a journal checks each recently freed inode when it allocates one).
const parent = process.env.STEADY_ROOT;
const root = await mkdtemp(join(parent ?? tmpdir(), "downcity-steady-"));

/** Drops what the scripted stand-in keeps of each call (a provider keeps nothing). */
const forget = (scripted) => {
  scripted.calls.length = 0;
  scripted.model.doStreamCalls.length = 0;
  scripted.model.doGenerateCalls.length = 0;
};

/** A side's call: the bare call, or a turn of a runtime over 10 contexts in rotation. */
function sideCall(rootDir) {
  const scripted = createScriptedModel([], { fallback: "ok" });
  if (side === "bare") return { scripted, call: () => generateText({ model: scripted.model, prompt: "hi" }) };
  const journal = side === "journaled" ? { journal: openFileRunJournal({ rootDir }) } : {};
  const runtime = createAgentRuntime({ rootDir, model: scripted.model, ...journal });
  let turn = 0;
  return { scripted, runtime, call: () => runtime.send({ contextId: `c${turn++ % 10}`, text: "hi" }) };
}

// Warm-up on a throwaway runtime, so the measured contexts' windows grow as in core-bench (to ~65 messages).
const warm = sideCall(join(root, "warm"));
for (let index = 0; index < (side === "bare" ? warmCalls : warmCalls / 2); index++) {
  await warm.call();
  if (index % 50 === 0) forget(warm.scripted);
}
await warm.runtime?.close();

const measured = sideCall(join(root, "measured"));
const wall = [];
const cpu = [];
for (let round = 0; round < rounds; round++) {
  const samples = [];
  const before = process.cpuUsage();
  for (let index = 0; index < perRound; index++) {
    const start = performance.now();
    await measured.call();
    samples.push(performance.now() - start);
  }
  const used = process.cpuUsage(before);
  cpu.push((used.user + used.system) / 1000 / perRound);
  wall.push(samples.sort((a, b) => a - b)[perRound / 2]);
  forget(measured.scripted);
}
await measured.runtime?.close();
if (!parent) await rm(root, { recursive: true, force: true });
console.log(JSON.stringify({ side, wall, cpu }));
