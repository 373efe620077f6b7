// Formatting benchmark, printed against a raw baseline measured in the same run:
// - rendering a 20 KB Markdown answer to Telegram HTML and chunking it to 4096 UTF-16 units (target p50 < 5 ms)
//   vs a raw `String.prototype.split` of the same text into paragraphs packed into 4096-character chunks.
// Run: pnpm --filter @downcity/core bench (builds first). Not part of the test run.
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { renderTelegramChunks } from "../dist/index.js";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

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

for (let index = 0; index < 30; index++) renderTelegramChunks(markdown);
const iterations = 300;
const renderSamples = [];
const rawSamples = [];
let chunkCount = 0;
// Interleaved, so both see the same machine load.
for (let index = 0; index < iterations; index++) {
  let start = performance.now();
  chunkCount = renderTelegramChunks(markdown).length;
  renderSamples.push(performance.now() - start);
  start = performance.now();
  rawChunks(markdown, 4096);
  rawSamples.push(performance.now() - start);
}
const minimum = (values) => Math.min(...values);
const cores = availableParallelism();
console.log(
  `telegram render+chunk p50 (${(markdown.length / 1000).toFixed(1)} KB Markdown -> ${chunkCount} chunks): ${median(renderSamples).toFixed(3)} ms (min ${minimum(renderSamples).toFixed(3)}) vs raw String.split chunking ${median(rawSamples).toFixed(3)} ms (min ${minimum(rawSamples).toFixed(3)}) (target p50 < 5 ms; load average ${loadavg()[0].toFixed(1)} on ${cores} cores)`,
);
