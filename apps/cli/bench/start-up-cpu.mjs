// CPU time (user + system) of `downcity --version`, `help` and `status` (no daemon) against bare
// `node -e 0`, measured in the same run, runs interleaved so machine load hits all alike. Each child
// reports its own process.cpuUsage() at exit through a tiny preload every command gets, the baseline too.
// Run: pnpm --filter @downcity/cli bench (builds first). Budget: at most 1.5x bare node.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const runs = Number(process.argv[2] ?? 31);
const reportCpu =
  "data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})";
const project = await mkdtemp(join(tmpdir(), "dc-start-up-"));
const env = { ...process.env, DOWNCITY_HOME: join(project, "home") };
for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];

const commands = {
  "node -e 0": ["-e", "0"],
  "downcity --version": [main, "--version"],
  "downcity help": [main, "help"],
  "downcity status": [main, "status"],
};

function cpuMs(args) {
  const { stderr } = spawnSync(process.execPath, ["--import", reportCpu, ...args], {
    cwd: project,
    env,
    encoding: "utf8",
  });
  const match = /cpu-us (\d+)/.exec(stderr);
  if (!match) throw new Error(`no CPU report from ${args.join(" ")}: ${stderr}`);
  return Number(match[1]) / 1000;
}

try {
  await writeFile(join(project, "downcity.json"), "{}\n");
  const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let run = 0; run < runs; run++)
    for (const [name, args] of Object.entries(commands)) samples[name].push(cpuMs(args));
  const p50 = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const bare = p50(samples["node -e 0"]);
  console.log(
    `${runs} runs each, Node ${process.versions.node}, ${cpus()[0]?.model ?? "unknown CPU"} x${cpus().length}`,
  );
  for (const [name, values] of Object.entries(samples)) {
    const median = p50(values);
    console.log(
      `${name.padEnd(20)} ${median.toFixed(1).padStart(6)} ms CPU p50  ${(median / bare).toFixed(2)}x bare node`,
    );
  }
} finally {
  await rm(project, { recursive: true, force: true });
}
