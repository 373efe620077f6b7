// A CPU profile of a worker daemon over a measured stretch: the daemon's entry is wrapped so it
// starts the V8 sampling profiler when a control file appears and writes the profile when a second
// one does; the share of busy samples in the PostgreSQL driver and this package is the store path.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@downcity/testkit";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Wraps `daemonEntry`; `start()` and `stop()` bracket the stretch, `stop()` returns the store path's share. */
export async function createDaemonProfiler(daemonEntry: string) {
  const dir = await mkdtemp(join(tmpdir(), "dc-profile-"));
  const entry = join(dir, "profiled-daemon.mjs");
  const file = (name: string) => JSON.stringify(join(dir, name));
  writeFileSync(
    entry,
    `import { Session } from "node:inspector";
import { existsSync, writeFileSync } from "node:fs";
const session = new Session();
session.connect();
session.post("Profiler.enable", () => session.post("Profiler.setSamplingInterval", { interval: 1000 }));
const watch = setInterval(() => {
  if (!existsSync(${file("start")})) return;
  clearInterval(watch);
  session.post("Profiler.start");
  const done = setInterval(() => {
    if (!existsSync(${file("stop")})) return;
    clearInterval(done);
    session.post("Profiler.stop", (error, result) => writeFileSync(${file("profile.json")}, JSON.stringify(result.profile)));
  }, 50);
  done.unref();
}, 50);
watch.unref();
await import(${JSON.stringify(daemonEntry)});
`,
  );
  return {
    entry,
    start: () => writeFileSync(join(dir, "start"), ""),
    /** Ends the profile and returns the share of busy samples whose stack is in the store path. */
    async stop(): Promise<{ storeShare: number; gcShare: number }> {
      writeFileSync(join(dir, "stop"), "");
      const path = join(dir, "profile.json");
      await until(() => existsSync(path), "the daemon's profile", { timeoutMs: 30_000 });
      const profile = JSON.parse(readFileSync(path, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
      return storeShareOf(profile);
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

const storeFrames = /\/(pg|pg-pool|pg-protocol|pg-types)\/|store-postgres/;

/** Busy samples (not idle) whose stack holds a frame of the driver or this package, and of GC. */
function storeShareOf(profile: { nodes: ProfileNode[]; samples: number[] }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  let busy = 0;
  let store = 0;
  let gc = 0;
  for (const sample of profile.samples) {
    const leaf = byId.get(sample)?.callFrame.functionName;
    if (leaf === "(idle)") continue;
    busy++;
    if (leaf === "(garbage collector)") gc++;
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id))
      if (storeFrames.test(byId.get(id)?.callFrame.url ?? "")) {
        store++;
        break;
      }
  }
  return { storeShare: store / Math.max(1, busy), gcShare: gc / Math.max(1, busy) };
}
