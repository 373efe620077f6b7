// Durable inbox benchmarks, printed against raw baselines measured in the same run:
// - accept p50 on one context vs a raw appendFile + fdatasync of the same record (target: >= 0.5x raw speed);
// - throughput of concurrent accepts across 100 contexts with group commit (target: >= 2,000 events/s).
// Run: pnpm --filter @downcity/core bench (builds first). Not part of the test run.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openFileStore } from "../dist/index.js";

const root = await mkdtemp(join(tmpdir(), "downcity-inbox-bench-"));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const event = (index, context = 0) => ({
  channel: "bench",
  eventId: `e${index}`,
  contextId: `bench:${context}`,
  message: {
    text: `message number ${index} with a realistic length of text in it`,
    chatId: String(context),
    userId: "u",
  },
});

try {
  const iterations = 400;
  // Interleaved, so both see the same machine load.
  const raw = await open(join(root, "raw.jsonl"), "a");
  const store = await openFileStore({ rootDir: join(root, "one"), inboxPath: join(root, "inbox.jsonl") });
  const { inbox } = store;
  const rawSamples = [];
  const acceptSamples = [];
  for (let index = 0; index < iterations; index++) {
    const line = `${JSON.stringify({ op: "accept", entry: { ...event(index), id: `bench:e${index}`, acceptedAt: new Date().toISOString() } })}\n`;
    let start = performance.now();
    await raw.appendFile(line);
    await raw.datasync();
    rawSamples.push(performance.now() - start);
    start = performance.now();
    await inbox.accept(event(index));
    acceptSamples.push(performance.now() - start);
  }
  await raw.close();
  const rawMs = median(rawSamples);
  const acceptMs = median(acceptSamples);
  console.log(
    `inbox accept p50 (one context): ${acceptMs.toFixed(3)} ms vs raw appendFile+fdatasync ${rawMs.toFixed(3)} ms -> ${(rawMs / acceptMs).toFixed(2)}x raw speed (target >= 0.5x)`,
  );

  const total = 5000;
  const floodStore = await openFileStore({
    rootDir: join(root, "flood"),
    inboxPath: join(root, "flood.jsonl"),
  });
  const flood = floodStore.inbox;
  const started = performance.now();
  const inFlight = [];
  for (let index = 0; index < total; index++) inFlight.push(flood.accept(event(index, index % 100)));
  await Promise.all(inFlight);
  const seconds = (performance.now() - started) / 1000;
  const rate = total / seconds;
  console.log(
    `inbox accept throughput (100 contexts, concurrent, group commit): ${Math.round(rate)} events/s; raw sequential fsync rate ${Math.round(1000 / rawMs)} events/s -> ${(rate / (1000 / rawMs)).toFixed(1)}x (target >= 2,000 events/s)`,
  );
  await store.close();
  await floodStore.close();
} finally {
  await rm(root, { recursive: true, force: true, maxRetries: 3 });
}
