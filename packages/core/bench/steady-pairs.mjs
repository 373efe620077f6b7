// Runs two sides of bench/steady-turn.mjs in alternating processes (which goes first alternates too,
// so load changes reach both) and answers, per pair, each side's median wall and CPU time a call (ms).
import { execFileSync } from "node:child_process";

const script = new URL("./steady-turn.mjs", import.meta.url).pathname;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `pairs` pairs of `sides` (two of bare|turn|journaled), their processes working under `root`. */
export function steadyPairs(root, sides, pairs) {
  const env = { ...process.env, STEADY_ROOT: root };
  const runSide = (side) =>
    JSON.parse(execFileSync(process.execPath, [script, side], { encoding: "utf8", env }));
  const results = [];
  for (let pair = 0; pair < pairs; pair++) {
    const result = {};
    for (const side of pair % 2 === 0 ? sides : [...sides].reverse()) {
      const { wall, cpu } = runSide(side);
      result[side] = { wall: median(wall), cpu: median(cpu) };
    }
    results.push(result);
  }
  return results;
}
