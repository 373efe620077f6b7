// Wall time of `downcity status <dir>` (the spawned, built CLI) against a running daemon and a stopped one,
// next to bare `node -e 0` measured in the same run. Run: pnpm --filter @downcity/cli bench
import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { initProject, startDaemonDetached, stopDaemon } from "@downcity/daemon";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const runs = Number(process.argv[2] ?? 20);
const home = await mkdtemp(join(tmpdir(), "dc-status-home-"));
const project = await mkdtemp(join(tmpdir(), "dc-status-project-"));
const env = { ...process.env, DOWNCITY_HOME: home };
for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];

function measure(args) {
  const times = [];
  let status;
  for (let index = 0; index < runs; index++) {
    const start = process.hrtime.bigint();
    status = spawnSync(process.execPath, args, { stdio: "ignore", env }).status;
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (q) => Number(times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(1));
  return { p50: at(0.5), p90: at(0.9), exit: status };
}

try {
  await initProject(project);
  const bare = measure(["-e", "0"]);
  const stopped = measure([main, "status", project]);
  await startDaemonDetached({ rootDir: project, env });
  const running = measure([main, "status", project]);
  console.log(
    JSON.stringify({ nodeBareMs: bare, statusStoppedMs: stopped, statusRunningMs: running }, null, 2),
  );
  console.log(
    `downcity status (daemon running): ${running.p50} ms p50 vs bare node ${bare.p50} ms -> ${(running.p50 / bare.p50).toFixed(2)}x (budget 150 ms)`,
  );
} finally {
  await stopDaemon({ rootDir: project, graceMs: 2000 }).catch(() => {});
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
}
