// Benchmarks of @downcity/shell against raw baselines measured in the same run.
// Run with `pnpm bench` (builds first); prints a table with ratios and the issue's targets.
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn as spawnPty } from "@lydell/node-pty";
import { createShellEngine } from "../dist/index.js";

const MB = 1024 * 1024;
const rootDir = mkdtempSync(join(tmpdir(), "dc-shell-bench-"));
const engine = createShellEngine({ rootDir, limits: { logBytes: 256 * MB } });
const shell = "/bin/bash";
// The engine runs bash without rc files; the raw baselines do the same so the comparison is fair.
const shellArgs = (command) => ["--norc", "--noprofile", "-c", command];

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const timed = async (run) => {
  const began = performance.now();
  await run();
  return performance.now() - began;
};
const repeat = async (count, run) => {
  const times = [];
  for (let i = 0; i < count; i++) times.push(await timed(run));
  return times;
};

const rawSpawn = () =>
  new Promise((resolve) => {
    const child = spawn(shell, shellArgs("true"), { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("close", resolve);
  });
const rawPty = () =>
  new Promise((resolve) => {
    const terminal = spawnPty(shell, shellArgs("true"), {
      cols: 80,
      rows: 24,
      cwd: rootDir,
      env: process.env,
    });
    terminal.onData(() => {});
    terminal.onExit(resolve);
  });

const rows = [];
const report = (name, value, unit, baseline, target) => {
  rows.push({ name, value, unit, baseline, target });
  const base =
    baseline === undefined
      ? ""
      : ` (raw ${baseline.toFixed(2)} ${unit}, ratio ${(value / baseline).toFixed(2)}x)`;
  console.log(`${name}: ${value.toFixed(2)} ${unit}${base}${target ? `  [target ${target}]` : ""}`);
};

const N = Number(process.env.BENCH_RUNS ?? 100);
// Warm-up: the first spawns pay for loading code and the native addon.
await repeat(5, rawSpawn);
await repeat(5, rawPty);
await repeat(5, () => engine.exec({ command: "true" }));
await repeat(5, () => engine.exec({ command: "true", tty: true }));

// Raw and engine runs alternate so background load on the machine hits both alike.
const interleaved = async (count, raw, ours) => {
  const rawTimes = [];
  const ourTimes = [];
  for (let i = 0; i < count; i++) {
    rawTimes.push(await timed(raw));
    ourTimes.push(await timed(ours));
  }
  return [rawTimes, ourTimes];
};
const [rawPipes, enginePipes] = await interleaved(N, rawSpawn, () => engine.exec({ command: "true" }));
report(
  "spawn overhead, pipes: shell_exec('true') p50",
  percentile(enginePipes, 50),
  "ms",
  percentile(rawPipes, 50),
  "<= 1.3x raw",
);
const [rawPtyTimes, enginePty] = await interleaved(N, rawPty, () =>
  engine.exec({ command: "true", tty: true }),
);
report(
  "spawn overhead, PTY: shell_exec('true', tty) p50",
  percentile(enginePty, 50),
  "ms",
  percentile(rawPtyTimes, 50),
  "<= 15 ms p50",
);

// Throughput: 200 MB through a session (ring + log) vs a raw pipe into a file.
const SIZE = 200 * MB;
const command = `head -c ${SIZE} /dev/zero`;
// Half on stdout, half on stderr, written concurrently: both streams are recorded.
const mixedCommand = `head -c ${SIZE / 2} /dev/zero & head -c ${SIZE / 2} /dev/zero >&2; wait`;
const rawRun = (cmd) =>
  timed(
    () =>
      new Promise((resolve) => {
        const child = spawn(shell, shellArgs(cmd), { stdio: ["ignore", "pipe", "pipe"] });
        const file = createWriteStream(join(rootDir, "raw.log"));
        child.stdout.pipe(file, { end: false });
        child.stderr.pipe(file, { end: false });
        child.on("close", () => file.end(resolve));
      }),
  );
const engineRun = (cmd) =>
  timed(async () => {
    const started = await engine.start({ command: cmd, yield_ms: 0, notify: false });
    await engine.wait({ shell_id: started.shell_id, until: "exit", timeout_ms: 300000 });
  });
// Median of alternating runs: one 200 MB run is noisy on a shared machine.
const THROUGHPUT_RUNS = Number(process.env.BENCH_THROUGHPUT_RUNS ?? 3);
const throughput = async (cmd) => {
  const [rawTimes, engineTimes] = await interleaved(
    THROUGHPUT_RUNS,
    () => rawRun(cmd),
    () => engineRun(cmd),
  );
  return [SIZE / MB / (percentile(rawTimes, 50) / 1000), SIZE / MB / (percentile(engineTimes, 50) / 1000)];
};
const [rawMBs, engineMBs] = await throughput(command);
report("throughput, 200 MB into ring + log", engineMBs, "MB/s", rawMBs, ">= 0.5x raw and >= 100 MB/s");
const [rawMixedMBs, engineMixedMBs] = await throughput(mixedCommand);
report(
  "throughput, 200 MB split over stdout + stderr",
  engineMixedMBs,
  "MB/s",
  rawMixedMBs,
  ">= 0.5x raw and >= 100 MB/s",
);

// Memory per flooding session: four `yes` floods for two seconds.
global.gc?.();
const memory = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const before = memory();
const rssBefore = process.memoryUsage().rss;
const floods = [];
for (let i = 0; i < 4; i++) floods.push(await engine.start({ command: "yes", yield_ms: 0, notify: false }));
let peak = before;
let rssPeak = rssBefore;
const end = performance.now() + 2000;
while (performance.now() < end) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  peak = Math.max(peak, memory());
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
}
for (const flood of floods) await engine.close({ shell_id: flood.shell_id, grace_ms: 200 });
report("memory per flooding session (heap + buffers, peak)", (peak - before) / 4 / MB, "MB");
report("memory per flooding session (RSS, peak)", (rssPeak - rssBefore) / 4 / MB, "MB");

// Exit -> shell-exit latency: the command prints its own exit time last.
const latency = async (tty) => {
  const values = [];
  for (let i = 0; i < 30; i++) {
    const event = new Promise((resolve) => {
      const off = engine.on("shell-exit", (e) => {
        off();
        resolve(e);
      });
    });
    await engine.start({ command: "sleep 0.02; date +%s%N", tty, yield_ms: 0 });
    const received = await event;
    const at = BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6));
    const exitedAt = BigInt(received.tail.trim().split("\n").at(-1).trim());
    values.push(Number(at - exitedAt) / 1e6);
  }
  return values;
};
const pipeLatency = await latency(false);
report(
  "exit -> shell-exit latency, pipes p50",
  percentile(pipeLatency, 50),
  "ms",
  undefined,
  "<= 150 ms p50",
);
report("exit -> shell-exit latency, pipes p99", percentile(pipeLatency, 99), "ms");
const ptyLatency = await latency(true);
report("exit -> shell-exit latency, PTY p50", percentile(ptyLatency, 50), "ms", undefined, "<= 150 ms p50");
report("exit -> shell-exit latency, PTY p99", percentile(ptyLatency, 99), "ms");

await engine.closeAll({ grace_ms: 200 });
rmSync(rootDir, { recursive: true, force: true });
if (process.env.BENCH_JSON) console.log(JSON.stringify(rows));
