// Memory of the runtime under sustained load, in process: 9,000 turns over 30 contexts, 10 in flight,
// on the zero-latency scripted model. Prints the heap (after a full GC) and RSS after warm-up and at
// the end; fails when a turn goes unanswered. Run: pnpm --filter @downcity/core soak (builds first).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRuntime } from "../dist/index.js";
import { createScriptedModel } from "../dist/scripted.js";

if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc");
const turns = Number(process.env.SOAK_TURNS ?? 9000);
const warmUp = 600;
const contexts = 30;
const inFlight = 10;
const root = await mkdtemp(join(tmpdir(), "downcity-memory-soak-"));
const scripted = createScriptedModel([], { fallback: "ok" });
const runtime = createAgentRuntime({ rootDir: root, model: scripted.model });

const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
function measure() {
  // The scripted stand-in keeps every call for tests to assert on; that is the stand-in's memory,
  // not the runtime's, so it is dropped before measuring.
  scripted.calls.length = 0;
  scripted.model.doStreamCalls.length = 0;
  scripted.model.doGenerateCalls.length = 0;
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

let answered = 0;
async function run(from, count) {
  for (let index = from; index < from + count; index += inFlight) {
    const results = await Promise.all(
      Array.from({ length: inFlight }, (_, lane) =>
        runtime.send({ contextId: `c${(index + lane) % contexts}`, text: `turn ${index + lane}` }),
      ),
    );
    answered += results.filter((result) => result.text === "ok").length;
    if (index % 1000 === 0) measure();
  }
}

await run(0, warmUp);
const start = measure();
await run(warmUp, turns - warmUp);
const end = measure();
await runtime.close();
await rm(root, { recursive: true, force: true });
console.log(
  `runtime memory soak: ${answered}/${turns} turns answered over ${contexts} contexts, ${inFlight} in flight; heap ${mb(start.heapUsed)} after warm-up -> ${mb(end.heapUsed)} (${mb(end.heapUsed - start.heapUsed)}, ${((end.heapUsed - start.heapUsed) / (turns - warmUp)).toFixed(0)} B/turn); RSS ${mb(start.rss)} -> ${mb(end.rss)}`,
);
if (answered !== turns) process.exitCode = 1;
