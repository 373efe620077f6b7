// Memory of a real daemon process under sustained load, through its HTTP API: 9,000 turns over 30
// contexts, 10 in flight (SOAK_TURNS=1000 for a quick check). The scripted model runs in its own
// process (it records every request). Samples the daemon's RSS (VmRSS of /proc/<pid>/status) after
// a warm-up and while it runs; fails on an unanswered or wrong turn, on RSS growth after warm-up over
// 25 MB, or on a peak over 160 MB. Prints where the daemon's memory is after warm-up and at the end
// (soak-memory-breakdown.mjs). Run: pnpm --filter @downcity/daemon soak (builds first).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  createDaemonClient,
  initProject,
  readToken,
  startDaemonDetached,
  stopDaemon,
} from "../dist/index.js";
import { formatBreakdown, readProbes, requestProbe, withMemoryProbe } from "./soak-memory-breakdown.mjs";

const turns = Number(process.env.SOAK_TURNS ?? 9000);
const warmUp = Number(process.env.SOAK_WARMUP ?? 500);
const contexts = 30;
const inFlight = 10;
const sampleEvery = 250;
const limits = { growthMb: 25, peakMb: 160 };

/** Resident memory of a process in MB, from the kernel's own accounting. */
function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  if (!line) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(line[1]) / 1024;
}

async function startModelProcess() {
  const script = fileURLToPath(new URL("./soak-model-server.mjs", import.meta.url));
  const child = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
  const [line] = await once(createInterface({ input: child.stdout }), "line");
  return { child, url: JSON.parse(line).url };
}

/** Runs turns [from, to) on `inFlight` lanes; each answer must echo its own turn token. */
async function runTurns(client, from, to, tally, onTurn) {
  let next = from;
  const lane = async () => {
    while (next < to) {
      const index = next++;
      const token = `turn-${index}`;
      try {
        const reply = await client.chatSend({
          contextId: `soak:c${index % contexts}`,
          text: `${token} hello`,
        });
        if (reply.text.trim() === `ack ${token}` && !reply.aborted) tally.answered += 1;
        else tally.wrong.push(`${token}: ${JSON.stringify(reply.text).slice(0, 120)}`);
      } catch (error) {
        tally.wrong.push(`${token}: ${error.message}`);
      }
      onTurn(index + 1);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
}

const base = await mkdtemp(join(tmpdir(), "downcity-daemon-soak-"));
const rootDir = join(base, "project");
const probe = withMemoryProbe({ ...process.env, DOWNCITY_HOME: join(base, "home") }, base);
const env = probe.env;
// SOAK_HEAP_SNAPSHOTS=1: `kill -USR2 <daemon pid>` writes a heap snapshot into the project folder (with SOAK_KEEP=1).
if (process.env.SOAK_HEAP_SNAPSHOTS === "1")
  env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ""} --heapsnapshot-signal=SIGUSR2`.trim();
for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];
const model = await startModelProcess();
let failed = true;
try {
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: model.url },
  });
  const daemon = await startDaemonDetached({ rootDir, env });
  const client = createDaemonClient({ host: daemon.host, port: daemon.port, token: await readToken(env) });
  const tally = { answered: 0, wrong: [] };
  const started = Date.now();
  const startRss = rssMb(daemon.pid);
  console.log(`daemon pid ${daemon.pid}, project ${rootDir}`);
  await runTurns(client, 0, Math.min(warmUp, turns), tally, () => {});
  const warmRss = rssMb(daemon.pid);
  requestProbe(daemon.pid);
  const samples = [];
  await runTurns(client, Math.min(warmUp, turns), turns, tally, (done) => {
    if (done % sampleEvery !== 0) return;
    samples.push({ turns: done, rss: rssMb(daemon.pid) });
    requestProbe(daemon.pid);
  });
  const finalRss = rssMb(daemon.pid);
  const seconds = (Date.now() - started) / 1000;
  // Signals do not queue: the last sample's probe must be written before the final one is asked for.
  await readProbes(probe.file, samples.length + 1);
  requestProbe(daemon.pid);
  const probes = await readProbes(probe.file, samples.length + 2);
  const peakRss = Math.max(warmRss, finalRss, ...samples.map((sample) => sample.rss));
  const growth = finalRss - warmRss;
  const f = (value) => `${value.toFixed(1)} MB`;
  console.log(
    `daemon soak: ${tally.answered}/${turns} turns answered over ${contexts} contexts, ${inFlight} in flight, in ${seconds.toFixed(0)} s (${(turns / seconds).toFixed(1)} turns/s)`,
  );
  console.log(
    `daemon RSS: start ${f(startRss)}, after ${warmUp}-turn warm-up ${f(warmRss)}, peak ${f(peakRss)}, final ${f(finalRss)}, growth ${f(growth)}`,
  );
  console.log(
    `samples (turns: MB): ${samples.map((sample) => `${sample.turns}: ${sample.rss.toFixed(0)}`).join(", ")}`,
  );
  console.log(
    `machine: ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(" ")}, node ${process.version}`,
  );
  if (probes.length === samples.length + 2)
    for (const line of formatBreakdown(probes[0], probes.at(-1))) console.log(line);
  else console.log(`memory breakdown: ${probes.length} of ${samples.length + 2} probe samples written`);
  for (const line of tally.wrong.slice(0, 10)) console.log(`unanswered: ${line}`);
  const checks = [
    [tally.answered === turns, `every turn answered (${tally.answered}/${turns})`],
    [growth <= limits.growthMb, `RSS growth after warm-up ${f(growth)} <= ${limits.growthMb} MB`],
    [peakRss <= limits.peakMb, `RSS plateau ${f(peakRss)} <= ${limits.peakMb} MB`],
  ];
  for (const [ok, text] of checks) console.log(`${ok ? "PASS" : "FAIL"} ${text}`);
  failed = checks.some(([ok]) => !ok);
} finally {
  await stopDaemon({ rootDir, graceMs: 5000 }).catch(() => {});
  model.child.kill("SIGTERM");
  if (process.env.SOAK_KEEP !== "1") await rm(base, { recursive: true, force: true });
  else console.log(`kept ${base}`);
}
process.exitCode = failed ? 1 : 0;
