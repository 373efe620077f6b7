// Runs sides of bench/steady-turn.mjs in alternating processes (the order reverses every other round,
// so load changes reach all) and answers, per round, each side's median wall time and CPU time a call
// (ms; `main`, the main thread's CPU time, where the platform tells it).
import { execFileSync } from "node:child_process";

const script = new URL("./steady-turn.mjs", import.meta.url).pathname;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `pairs` rounds of `sides` (steady-turn.mjs names them), their processes working under `root`. */
export function steadyPairs(root, sides, pairs) {
  const env = { ...process.env, STEADY_ROOT: root };
  const runSide = (side) =>
    JSON.parse(execFileSync(process.execPath, [script, side], { encoding: "utf8", env }));
  const results = [];
  for (let pair = 0; pair < pairs; pair++) {
    const result = {};
    for (const side of pair % 2 === 0 ? sides : [...sides].reverse()) {
      const { wall, cpu, main } = runSide(side);
      result[side] = { wall: median(wall), cpu: median(cpu), ...(main ? { main: median(main) } : {}) };
    }
    results.push(result);
  }
  return results;
}
