// Run journal costs, each as a ratio measured in the same run (pnpm --filter @downcity/core bench).
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createAgentRuntime, openFileRunJournal } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";

const root = await mkdtemp(join(tmpdir(), "downcity-journal-bench-"));
const fmt = (ms) => `${ms.toFixed(3)} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function turnMs(name, journal) {
  const iterations = 200;
  const scripted = createScriptedModel();
  scripted.push(...Array.from({ length: iterations + 20 }, () => "ok"));
  const runtime = createAgentRuntime({
    rootDir: join(root, name),
    model: scripted.model,
    ...(journal ? { journal: journal(join(root, name)) } : {}),
  });
  const samples = [];
  for (let index = 0; index < iterations; index++) {
    const start = performance.now();
    await runtime.send({ contextId: `c${index % 10}`, text: "hi" });
    samples.push(performance.now() - start);
  }
  await runtime.close();
  return median(samples);
}

// 1. A turn on the zero-latency model with and without the file journal.
{
  const without = await turnMs("plain");
  const withJournal = await turnMs("journaled", (rootDir) => openFileRunJournal({ rootDir }));
  console.log(
    `turn with journal ${fmt(withJournal)} p50 vs without ${fmt(without)} -> +${(((withJournal - without) / without) * 100).toFixed(1)}% of turn time`,
  );
}

// 2. Journal appends (one run, one record each, durable) vs raw appendFile + fdatasync.
{
  const iterations = 500;
  const record = {
    type: "tool-end",
    step: 0,
    toolCallId: "c",
    toolName: "t",
    output: { ok: true },
    durationMs: 1,
  };
  const rawPath = join(root, "raw.jsonl");
  const rawStart = performance.now();
  for (let index = 0; index < iterations; index++) {
    const handle = await open(rawPath, "a");
    await handle.write(`${JSON.stringify({ ...record, v: 1, at: new Date().toISOString() })}\n`);
    await handle.datasync();
    await handle.close();
  }
  const rawPerSecond = iterations / ((performance.now() - rawStart) / 1000);
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
  const start = performance.now();
  for (let index = 0; index < iterations; index++)
    await journal.append("bench", [{ ...record, at: new Date().toISOString() }]);
  const perSecond = iterations / ((performance.now() - start) / 1000);
  await journal.close();
  console.log(
    `journal append: ${perSecond.toFixed(0)}/s vs raw appendFile+fdatasync ${rawPerSecond.toFixed(0)}/s -> ${(perSecond / rawPerSecond).toFixed(2)}x`,
  );
}

await rm(root, { recursive: true, force: true });
