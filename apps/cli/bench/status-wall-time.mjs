// Wall time of `downcity status <dir>` (a spawned, built CLI), median and p90 over N runs, next to bare `node -e 0`.
// Usage: node bench/status-wall-time.mjs <projectDir> [runs=20]
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const dir = process.argv[2] ?? process.cwd();
const runs = Number(process.argv[3] ?? 20);

function measure(args) {
  const times = [];
  let status;
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    status = spawnSync(process.execPath, args, { stdio: "ignore" }).status;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1);
  return { median: at(0.5), p90: at(0.9), exit: status };
}

console.log("node -e 0          ", measure(["-e", "0"]));
console.log("downcity status    ", measure([main, "status", dir]));
console.log("downcity --version ", measure([main, "--version"]));
