// Benchmarks for @downcity/core, each printed as a ratio against a raw baseline measured in the same run.
// Run: pnpm --filter @downcity/core bench (builds first). Not part of the test run.
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generateText } from "ai";
import { createAgentRuntime, createHistoryStore } from "../dist/index.js";
import { historyToModelMessages } from "../dist/internal.js";
import { createScriptedModel } from "../dist/scripted.js";

const root = await mkdtemp(join(tmpdir(), "downcity-bench-"));
const fmt = (ms) => `${ms.toFixed(3)} ms`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function time(fn, iterations) {
  const samples = [];
  for (let index = 0; index < iterations; index++) {
    const start = performance.now();
    await fn(index);
    samples.push(performance.now() - start);
  }
  return median(samples);
}

// 1. Runtime per-message overhead vs bare generateText with the same zero-latency mock.
{
  const iterations = 300;
  const forever = () => "ok";
  const bare = createScriptedModel();
  bare.push(...Array.from({ length: iterations + 20 }, () => forever));
  const bareMs = await time(() => generateText({ model: bare.model, prompt: "hi" }), iterations);
  const scripted = createScriptedModel();
  scripted.push(...Array.from({ length: iterations + 20 }, () => forever));
  const runtime = createAgentRuntime({ rootDir: join(root, "rt"), model: scripted.model });
  const runtimeMs = await time(
    (index) => runtime.send({ contextId: `c${index % 10}`, text: "hi" }),
    iterations,
  );
  await runtime.close();
  console.log(
    `runtime turn (2 fsynced appends + prompt build): ${fmt(runtimeMs)} p50 vs bare generateText ${fmt(bareMs)} -> ${(runtimeMs / bareMs).toFixed(1)}x, overhead ${fmt(runtimeMs - bareMs)}`,
  );
}

// 2. History append throughput vs raw appendFile + fsync.
{
  const iterations = 500;
  const line = {
    id: "x",
    role: "user",
    parts: [{ type: "text", text: "hello ".repeat(20) }],
    metadata: { createdAt: "" },
  };
  const rawPath = join(root, "raw.jsonl");
  const rawStart = performance.now();
  for (let index = 0; index < iterations; index++) {
    const handle = await open(rawPath, "a");
    await handle.write(`${JSON.stringify({ ...line, id: `r${index}` })}\n`);
    await handle.sync();
    await handle.close();
  }
  const rawPerSecond = iterations / ((performance.now() - rawStart) / 1000);
  const store = createHistoryStore({ dir: join(root, "append") });
  const storeStart = performance.now();
  for (let index = 0; index < iterations; index++) await store.append({ ...line, id: `s${index}` });
  const storePerSecond = iterations / ((performance.now() - storeStart) / 1000);
  console.log(
    `history append: ${storePerSecond.toFixed(0)}/s vs raw appendFile+fsync ${rawPerSecond.toFixed(0)}/s -> ${(storePerSecond / rawPerSecond).toFixed(2)}x`,
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
