// `pnpm check`: build, typecheck, lint, the boundary tests, then every package's tests. No step stops
// the ones after it (turbo --continue within a step): a failing package never hides the others'
// results. Ends with a one-screen summary: each step, each failed task, and the total time.
// Usage: node scripts/check.mjs [turbo filter flags, e.g. --filter=@downcity/core...]
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const filters = process.argv.slice(2);
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const runsDir = join(root, ".turbo", "runs");

/** Runs a command with its output on this terminal; resolves to its exit code. */
function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: "inherit" });
    child.on("error", () => resolve(127));
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/** The turbo run summary written since `since` (turbo --summarize), if any. */
function turboSummary(since) {
  if (!existsSync(runsDir)) return undefined;
  const newest = readdirSync(runsDir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => join(runsDir, file))
    .filter((path) => statSync(path).mtimeMs >= since)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  return newest ? JSON.parse(readFileSync(newest, "utf8")) : undefined;
}

/** Failed task ids of a turbo step (`@downcity/core#test`), from its run summary. */
function failedTasks(summary) {
  return (summary?.tasks ?? [])
    .filter(
      (task) => task.execution && task.execution.exitCode !== 0 && task.execution.exitCode !== undefined,
    )
    .map((task) => task.taskId);
}

const turbo = (task, extra = []) => [
  "npx",
  ["turbo", "run", task, "--continue", "--summarize", "--output-logs=new-only", ...extra, ...filters],
];
const steps = [
  { name: "build", command: turbo("build") },
  { name: "typecheck", command: turbo("typecheck") },
  { name: "lint", command: ["npx", ["biome", "check", "."]] },
  { name: "boundaries", command: ["npx", ["vitest", "run", "--project", "boundaries"]] },
  // One package's tests at a time: several spawn daemons, PTYs and browsers.
  { name: "test", command: turbo("test", ["--concurrency=1"]) },
];

const results = [];
for (const step of steps) {
  const stepStarted = Date.now();
  process.stdout.write(`\n==> ${step.name}\n`);
  const code = await run(...step.command);
  const isTurbo = step.command[1][0] === "turbo";
  const failed = isTurbo ? failedTasks(turboSummary(stepStarted)) : [];
  results.push({ name: step.name, code, failed, ms: Date.now() - stepStarted });
}

const lines = ["", "──── pnpm check ────"];
for (const result of results) {
  const state = result.code === 0 ? "ok  " : "FAIL";
  lines.push(`${state}  ${result.name.padEnd(10)} ${seconds(result.ms).padStart(6)}`);
  for (const task of result.failed) lines.push(`        failed: ${task}`);
}
const failedSteps = results.filter((result) => result.code !== 0);
lines.push(
  failedSteps.length === 0
    ? `All passed in ${seconds(Date.now() - started)}.`
    : `${failedSteps.length} of ${results.length} steps failed in ${seconds(Date.now() - started)}; scroll up to each failed task's output (or rerun one: npx turbo run test --filter=<package>).`,
);
process.stdout.write(`${lines.join("\n")}\n`);
process.exitCode = failedSteps.length === 0 ? 0 : 1;
