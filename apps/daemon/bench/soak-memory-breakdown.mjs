// Where the soaked daemon's resident memory is: asks the preloaded probe (soak-memory-probe.cjs)
// for a sample beside each RSS sample, and prints the samples after warm-up and at the end side by
// side, so RSS growth can be told apart into V8 heap, native malloc and file mappings.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const probeScript = fileURLToPath(new URL("./soak-memory-probe.cjs", import.meta.url));

/** The daemon's environment with the probe preloaded; samples go to a file in `dir`. */
export function withMemoryProbe(env, dir) {
  const file = join(dir, "memory-probe.jsonl");
  const nodeOptions = `${env.NODE_OPTIONS ?? ""} --require ${probeScript}`.trim();
  return { env: { ...env, NODE_OPTIONS: nodeOptions, SOAK_PROBE_FILE: file }, file };
}

/** Asks the daemon for a sample; it is written when the daemon's event loop gets to it. */
export function requestProbe(pid) {
  process.kill(pid, "SIGWINCH");
}

/** The first `count` samples, once the daemon has written them (or what there is after 10 s). */
export async function readProbes(file, count) {
  const deadline = Date.now() + 10_000;
  let lines = [];
  while (Date.now() < deadline) {
    lines = existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
    if (lines.length >= count) break;
    await sleep(20);
  }
  return lines.slice(0, count).map((line) => JSON.parse(line));
}

/** One sample as named figures in MB; "native" is anonymous memory that is neither V8 nor an arena. */
function figures(sample) {
  const { spaces, smaps } = sample;
  const space = (name) => spaces[name]?.committedMb ?? 0;
  return {
    rss: sample.rssMb,
    "V8 committed": sample.heapCommittedMb,
    "  new": space("new") + space("new_large_object"),
    "  old": space("old"),
    "  code": space("code") + space("code_large_object"),
    "  large objects": space("large_object"),
    "V8 used": sample.heapUsedMb,
    "external (arrayBuffers)": sample.externalMb,
    "malloc brk heap": smaps.brkMb,
    [`malloc thread arenas (${smaps.arenaCount})`]: smaps.arenasMb,
    "other anon minus V8": smaps.anonOtherMb - sample.heapCommittedMb,
    "file-backed": smaps.fileMb,
  };
}

/** Lines of a table: each figure after warm-up, at the end, and the difference. */
export function formatBreakdown(warm, end) {
  const before = figures(warm);
  const after = figures(end);
  const keys = Object.keys(after);
  const lines = ["memory breakdown (MB): after warm-up -> end (difference)"];
  Object.keys(before).forEach((key, index) => {
    const a = before[key];
    const b = after[keys[index]];
    const sign = b - a >= 0 ? "+" : "";
    lines.push(
      `  ${keys[index].padEnd(28)} ${a.toFixed(1).padStart(6)} -> ${b.toFixed(1).padStart(6)} (${sign}${(b - a).toFixed(1)})`,
    );
  });
  return lines;
}
