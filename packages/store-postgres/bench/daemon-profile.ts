// A CPU profile of a worker daemon over a measured stretch: the daemon's entry is wrapped so it
// starts the V8 sampling profiler (and counts the statements it sends) when a control file appears
// and writes both when a second one does. Samples are attributed to source files through the
// bundles' source maps, so the PostgreSQL store path and the file store's path are told apart
// inside one daemon bundle.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire, SourceMap } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { until } from "@downcity/testkit";
import { breakdown, type PartShare, type SampleStack } from "./cpu-breakdown.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** What a profiled stretch found: shares of the daemon's busy samples, and the statements it sent. */
export interface DaemonProfile {
  /** Busy samples with a frame of the PostgreSQL store path (this package, `pg` and its parts). */
  postgresShare: number;
  /** Busy samples with a frame of core's file store (`packages/core/src/store/file/`). */
  fileStoreShare: number;
  /** Busy samples in the garbage collector (attributed to nobody). */
  gcShare: number;
  /** Statements sent over every connection of the daemon, by their first words. */
  statements: Map<string, number>;
  /** Source files by busy samples (self time), most first: where the rest of the CPU goes. */
  topSources: Array<[string, number]>;
  /** Busy samples by part of an event's path (`cpu-breakdown.ts`), largest first. */
  parts: PartShare[];
}

// The daemon resolves pg from the store package's folder, which resolves it from this package.
const pgEntry = createRequire(import.meta.url).resolve("pg");

/** Wraps `daemonEntry`; `start()` and `stop()` bracket the stretch. */
export async function createDaemonProfiler(daemonEntry: string) {
  const dir = await mkdtemp(join(tmpdir(), "dc-profile-"));
  const entry = join(dir, "profiled-daemon.mjs");
  const file = (name: string) => JSON.stringify(join(dir, name));
  writeFileSync(
    entry,
    `import { Session } from "node:inspector";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
const pg = createRequire(import.meta.url)(${JSON.stringify(pgEntry)});
const statements = new Map();
const stacks = new Map();
const keepStacks = ${JSON.stringify(Boolean(process.env.BENCH_STATEMENT_STACKS))};
const keepHeap = ${JSON.stringify(Boolean(process.env.BENCH_HEAP_PROFILE))};
let counting = false;
const textOf = (config) => String(typeof config === "string" ? config : config?.text ?? "?").replace(/\\s+/g, " ").trim().slice(0, 160);
// BENCH_STATEMENT_STACKS: who sends each statement (its callers' names, from the bundle).
const keepStack = (config) => {
  if (!counting || !keepStacks) return;
  const stack = (new Error().stack ?? "").split("\\n").slice(3, 14).map((line) => line.trim().replace(/\\(.*\\)|file:\\/\\/\\S+/g, "")).join(" < ");
  const key = textOf(config).slice(0, 60) + " <= " + stack;
  stacks.set(key, (stacks.get(key) ?? 0) + 1);
};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  if (counting) {
    const text = textOf(config);
    statements.set(text, (statements.get(text) ?? 0) + 1);
  }
  return query.call(this, config, ...rest);
};
const poolQuery = pg.Pool.prototype.query;
pg.Pool.prototype.query = function (config, ...rest) {
  keepStack(config);
  return poolQuery.call(this, config, ...rest);
};
const session = new Session();
session.connect();
session.post("Profiler.enable", () => session.post("Profiler.setSamplingInterval", { interval: 1000 }));
const watch = setInterval(() => {
  if (!existsSync(${file("start")})) return;
  clearInterval(watch);
  session.post("Profiler.start");
  if (keepHeap) session.post("HeapProfiler.startSampling", { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  counting = true;
  const done = setInterval(() => {
    if (!existsSync(${file("stop")})) return;
    clearInterval(done);
    counting = false;
    writeFileSync(${file("statements.json")}, JSON.stringify([...statements]));
    if (keepStacks) writeFileSync(${file("stacks.json")}, JSON.stringify([...stacks].sort((a, b) => b[1] - a[1]), null, 1));
    if (keepHeap)
      session.post("HeapProfiler.stopSampling", (error, result) => {
        writeFileSync(${file("heap.json")}, JSON.stringify(result.profile));
      });
    // Written aside and renamed: the bench reads the file as soon as it exists.
    session.post("Profiler.stop", (error, result) => {
      writeFileSync(${file("profile.json.partial")}, JSON.stringify(result.profile));
      renameSync(${file("profile.json.partial")}, ${file("profile.json")});
    });
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
    /** Ends the profile and returns where the daemon's busy samples were, and its statements. */
    async stop(): Promise<DaemonProfile> {
      writeFileSync(join(dir, "stop"), "");
      const path = join(dir, "profile.json");
      await until(() => existsSync(path), "the daemon's profile", { timeoutMs: 30_000 });
      const profile = JSON.parse(readFileSync(path, "utf8")) as { nodes: ProfileNode[]; samples: number[] };
      // BENCH_PROFILE_DIR keeps each profile (open it in Chrome's DevTools, Performance tab);
      // with BENCH_HEAP_PROFILE=1 also a sampling heap profile of what was allocated meanwhile
      // (collected objects included: who makes the garbage).
      const keep = process.env.BENCH_PROFILE_DIR;
      if (keep) {
        const stamp = Date.now();
        copyFileSync(path, join(keep, `daemon-${stamp}.cpuprofile`));
        if (existsSync(join(dir, "heap.json")))
          copyFileSync(join(dir, "heap.json"), join(keep, `daemon-${stamp}.heapprofile`));
        if (existsSync(join(dir, "stacks.json")))
          copyFileSync(join(dir, "stacks.json"), join(keep, `statements-${stamp}.json`));
      }
      const statements = new Map(
        JSON.parse(readFileSync(join(dir, "statements.json"), "utf8")) as Array<[string, number]>,
      );
      return { ...attribute(profile), statements };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}

const postgresPath =
  /\/node_modules\/(pg|pg-pool|pg-protocol|pg-types|pg-connection-string|postgres-[a-z]+)\/|\/store-postgres\/src\//;
const fileStorePath = /\/core\/src\/store\/file\//;

/** The source file of a frame: its bundle's source map where there is one, else the frame's own URL. */
function createSourceResolver() {
  const maps = new Map<string, SourceMap | undefined>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      let map: SourceMap | undefined;
      try {
        const path = url.startsWith("file:") ? fileURLToPath(url) : url;
        if (existsSync(`${path}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8")));
      } catch {
        map = undefined;
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  return (frame: ProfileNode["callFrame"]) => {
    const map = frame.url ? mapOf(frame.url) : undefined;
    if (!map) return frame.url || `(${frame.functionName || "anonymous"})`;
    const found = map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
    if (!found.originalSource) return frame.url;
    // A map names its sources relative to itself.
    return fileURLToPath(
      new URL(
        found.originalSource,
        pathToFileURL(frame.url.startsWith("file:") ? fileURLToPath(frame.url) : frame.url),
      ),
    );
  };
}

/** Busy samples (not idle) whose stack holds a frame of either store path, and of GC. */
function attribute(profile: { nodes: ProfileNode[]; samples: number[] }) {
  const sourceOf = createSourceResolver();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const sources = new Map(profile.nodes.map((node) => [node.id, sourceOf(node.callFrame)]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stackHolds = (sample: number, path: RegExp) => {
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id))
      if (path.test(sources.get(id) ?? "")) return true;
    return false;
  };
  const stackOf = (sample: number): SampleStack => {
    const stack: SampleStack = [];
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id))
      stack.push({ source: sources.get(id) ?? "", name: byId.get(id)?.callFrame.functionName ?? "" });
    return stack;
  };
  const stacks: SampleStack[] = [];
  let busy = 0;
  let postgres = 0;
  let fileStore = 0;
  let gc = 0;
  const self = new Map<string, number>();
  for (const sample of profile.samples) {
    const leaf = byId.get(sample)?.callFrame.functionName;
    if (leaf === "(idle)") continue;
    busy++;
    stacks.push(stackOf(sample));
    if (leaf === "(garbage collector)") gc++;
    if (stackHolds(sample, postgresPath)) postgres++;
    if (stackHolds(sample, fileStorePath)) fileStore++;
    const source = (sources.get(sample) ?? "?").replace(/^.*\/(node_modules|packages|apps)\//, "");
    self.set(source, (self.get(source) ?? 0) + 1);
  }
  const share = (count: number) => count / Math.max(1, busy);
  const topSources = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([source, count]): [string, number] => [source, Number(share(count).toFixed(3))]);
  return {
    postgresShare: share(postgres),
    fileStoreShare: share(fileStore),
    gcShare: share(gc),
    topSources,
    parts: breakdown(stacks),
  };
}
