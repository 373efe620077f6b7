// Formatting benchmark, printed against a raw baseline measured in the same run:
// - rendering a 20 KB Markdown answer to Telegram HTML and chunking it to 4096 UTF-16 units (target p50 < 5 ms)
//   vs a raw `String.prototype.split` of the same text into paragraphs packed into 4096-character chunks.
// Each iteration is timed twice: wall time, and the process's CPU time (`process.cpuUsage()` deltas; the
// bench is single-threaded, so this is the work done, less what other processes on a loaded machine take).
// The target is judged on the CPU-time p50; the wall p50 is printed beside it.
// Run: pnpm --filter @downcity/core bench (builds first). Not part of the test run.
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { renderTelegramChunks } from "../dist/index.js";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const minimum = (values) => values.reduce((least, value) => Math.min(least, value), Number.POSITIVE_INFINITY);
const fmt = (ms) => `${ms.toFixed(3)} ms`;

// A long answer the way models write them: headings, styled prose with links, lists, a table, code.
function answer(bytes) {
  const sections = [];
  for (let index = 0; sections.join("\n\n").length < bytes; index++) {
    sections.push(
      `## Step ${index}: check the *configuration* & logs`,
      `The **daemon** read \`downcity.json\` and found ${index} issues; see [the guide](https://docs.test/guide?step=${index}&lang=en) or <https://docs.test/faq>. Keep ~~old~~ values < 10 ms.`,
      `- first item with **bold**\n- second with a [link](https://x.test/${index})\n  - nested _detail_\n- third`,
      `| Metric | Value | Unit |\n|:--|--:|:-:|\n| latency | ${index * 3} | ms |\n| throughput | ${index * 100} | req/s |`,
      `\`\`\`ts\nfor (const item of items) {\n  if (item.size > ${index} && item.ok) total += item.size; // <${index}>\n}\n\`\`\``,
      `> Note: quoted **advice** number ${index}.`,
    );
  }
  return sections.join("\n\n");
}

const markdown = answer(20_000);
const rawChunks = (text, max) => {
  const chunks = [];
  let current = "";
  for (const paragraph of text.split("\n\n")) {
    if (current.length + paragraph.length + 2 > max && current) {
      chunks.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph;
  }
  if (current) chunks.push(current);
  return chunks;
};

/** Runs `task` once, adding its wall and CPU milliseconds to `samples`. */
function measure(task, samples) {
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const result = task();
  samples.wall.push(performance.now() - start);
  const cpu = process.cpuUsage(cpuBefore);
  samples.cpu.push((cpu.user + cpu.system) / 1000);
  return result;
}

for (let index = 0; index < 30; index++) renderTelegramChunks(markdown);
const loadBefore = loadavg()[0];
const iterations = 300;
const render = { wall: [], cpu: [] };
const raw = { wall: [], cpu: [] };
let chunkCount = 0;
// Interleaved, so both see the same machine load.
for (let index = 0; index < iterations; index++) {
  chunkCount = measure(() => renderTelegramChunks(markdown), render).length;
  measure(() => rawChunks(markdown, 4096), raw);
}
const loadAfter = loadavg()[0];
const cpuP50 = median(render.cpu);
const line = (name, samples) =>
  `${name}: CPU p50 ${fmt(median(samples.cpu))} (min ${fmt(minimum(samples.cpu))}), wall p50 ${fmt(median(samples.wall))} (min ${fmt(minimum(samples.wall))})`;
console.log(
  `telegram render+chunk of ${(markdown.length / 1000).toFixed(1)} KB Markdown -> ${chunkCount} chunks, ${iterations} iterations, load average ${loadBefore.toFixed(1)} -> ${loadAfter.toFixed(1)} on ${availableParallelism()} cores`,
);
console.log(`  ${line("render+chunk", render)}`);
console.log(`  ${line("raw String.split chunking", raw)}`);
console.log(
  `  render+chunk / raw: ${(median(render.wall) / median(raw.wall)).toFixed(0)}x (wall p50), ${(cpuP50 / median(raw.cpu)).toFixed(0)}x (CPU p50)`,
);
console.log(
  `  target p50 < 5 ms, judged on the CPU-time p50 (wall time also counts the time other processes hold the cores): ${fmt(cpuP50)}, ${cpuP50 < 5 ? "met" : "NOT met"}`,
);
