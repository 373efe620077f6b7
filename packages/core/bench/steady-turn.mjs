// One side of a steady-state comparison, in a process of its own: `bare` (the AI SDK's generateText
// on the zero-latency scripted model), `turn` (a runtime turn on the same model, with its file
// store), `journaled` (the same turn with the file run journal), `journaled-fsync` (the same, every
// append durable: an fdatasync at every step boundary, a tool-less step's too, as the journal's
// contract words it) or `file-floor` (the turn plus only what the journal's layout costs at the
// least: a file per run, created, given one short line and closed as the run ends); core-bench
// compares the first two, journal-bench the others. It warms its
// own code to V8's steady state first, then times rounds of 20 calls and prints one JSON line: each
// round's median wall time, and CPU time a call (the process's, all threads; and the main thread's,
// where Linux tells it: the thread a turn runs on), in ms.
// A process of its own, because in one process the two sides share compiled code (zod, the AI SDK's
// prompt handling): what one side ran decides how fast the other's shared functions were optimised.
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generateText } from "ai";
import { createAgentRuntime, openFileRunJournal } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";

const side = process.argv[2];
const sides = ["bare", "turn", "journaled", "journaled-fsync", "file-floor"];
if (!sides.includes(side))
  throw new Error(`usage: node bench/steady-turn.mjs ${sides.join("|")} (got ${side})`);
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

/**
 * The file run journal; for `journaled-fsync`, every append made durable (the shipped recorder asks
 * for an fdatasync only where tools ran: before a tool starts, and at the end of a step whose tools ran).
 */
function journalOf(rootDir) {
  const journal = openFileRunJournal({ rootDir });
  if (side !== "journaled-fsync") return journal;
  return { ...journal, append: (requestId, records) => journal.append(requestId, records, { sync: true }) };
}

/** A side's call: the bare call, or a turn of a runtime over 10 contexts in rotation. */
function sideCall(rootDir) {
  const scripted = createScriptedModel([], { fallback: "ok" });
  if (side === "bare") return { scripted, call: () => generateText({ model: scripted.model, prompt: "hi" }) };
  const journal = side.startsWith("journaled") ? { journal: journalOf(rootDir) } : {};
  const runtime = createAgentRuntime({ rootDir, model: scripted.model, ...journal });
  if (side === "file-floor") {
    // Inside the turn: the runtime emits `run-end` before the run settles.
    const runsDir = join(rootDir, "runs");
    mkdirSync(runsDir, { recursive: true });
    runtime.on((event) => {
      if (event.type !== "run-end") return;
      const fd = openSync(join(runsDir, `${event.requestId}.jsonl`), "ax");
      writeSync(
        fd,
        `${JSON.stringify({ requestId: event.requestId, contextId: event.contextId, steps: event.steps })}\n`,
      );
      closeSync(fd);
    });
  }
  let turn = 0;
  return { scripted, runtime, call: () => runtime.send({ contextId: `c${turn++ % 10}`, text: "hi" }) };
}

// Warm-up on a throwaway runtime, so the measured contexts' windows grow as in core-bench (to ~65 messages).
const warm = sideCall(join(root, "warm"));
for (let index = 0; index < (side === "bare" ? warmCalls : warmCalls / 2); index++) {
  await warm.call();
  forget(warm.scripted);
}
await warm.runtime?.close();

/** The main thread's CPU time so far, in ns (Linux), else undefined. */
const mainThreadNs = () => {
  try {
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]);
  } catch {
    return undefined;
  }
};
const measured = sideCall(join(root, "measured"));
const wall = [];
const cpu = [];
const main = [];
for (let round = 0; round < rounds; round++) {
  const samples = [];
  const before = process.cpuUsage();
  const mainBefore = mainThreadNs();
  for (let index = 0; index < perRound; index++) {
    const start = performance.now();
    await measured.call();
    samples.push(performance.now() - start);
    // After every call, as a provider keeps nothing: what the stand-in keeps of a call (its options,
    // and through its abort signal the run's state) would otherwise outlive the turn, and the GC
    // would pay for it in later ones.
    forget(measured.scripted);
  }
  const used = process.cpuUsage(before);
  const mainAfter = mainThreadNs();
  cpu.push((used.user + used.system) / 1000 / perRound);
  if (mainBefore !== undefined && mainAfter !== undefined)
    main.push((mainAfter - mainBefore) / 1e6 / perRound);
  wall.push(samples.sort((a, b) => a - b)[perRound / 2]);
}
await measured.runtime?.close();
if (!parent) await rm(root, { recursive: true, force: true });
console.log(JSON.stringify({ side, wall, cpu, ...(main.length > 0 ? { main } : {}) }));
