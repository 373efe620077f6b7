// Several daemon processes ("workers") of one agent on one PostgreSQL database, for end-to-end tests
// and benchmarks. Each worker is its own project folder and DOWNCITY_HOME, as on its own machine,
// with the same downcity.json; the daemon loads @downcity/store-postgres and
// @downcity/adapters-webhook from the project's node_modules by package name.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  createDaemonClient,
  type DaemonClient,
  daemonPaths,
  daemonStatus,
  initProject,
  resolveDaemonTarget,
  startDaemonDetached,
  stopDaemon,
} from "@downcity/daemon";
import { freePort, until } from "@downcity/testkit";
import pg from "pg";
import { type ClusterRuntime, prepareClusterRuntime } from "./cluster-runtime.js";

export { type ClusterRuntime, prepareClusterRuntime } from "./cluster-runtime.js";

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Options of `createWorkerCluster`. */
export interface WorkerClusterOptions {
  /** Admin URL of the test server (ends in /postgres); a fresh database is created on it. */
  adminUrl: string;
  workers: number;
  /** Base URL (ending in /v1) of the scripted OpenAI-compatible model every worker talks to. */
  modelUrl: string;
  /** Where the webhook channel `hook` POSTs replies, and its HMAC secret. */
  hook: { url: string; secret: string; access?: Record<string, unknown> };
  /** store.leaseMs [3000]. */
  leaseMs?: number;
  /** lanes.maxConcurrency: runs one worker takes on at once [4]. */
  maxConcurrency?: number;
  /** More channel instances, the same on every worker (`"adapter": "./file.mjs"` works with `files`). */
  channels?: Record<string, Record<string, unknown>>;
  /** Files written into every project folder (relative path -> content), e.g. a channel adapter. */
  files?: Record<string, string>;
  /** Last word on each worker's downcity.json. */
  configure?(config: Record<string, unknown>, worker: number): void;
  /** Bundles to run; one is prepared (and disposed on close) when absent. */
  runtime?: ClusterRuntime;
  /** How long a start may take [30 s]. */
  startTimeoutMs?: number;
}

/** What `downcity channels list` answers. */
export interface ChannelsList {
  store: string;
  worker: string;
  channels: Array<{
    name: string;
    adapter: string;
    state: string;
    error?: string;
    counts: Record<string, number>;
  }>;
}

/** One worker: a project folder, its DOWNCITY_HOME, and the daemon process when running. */
export interface ClusterWorker {
  readonly index: number;
  readonly rootDir: string;
  readonly env: Record<string, string | undefined>;
  /** The port of its webhook channel `hook` (the same across restarts). */
  readonly hookPort: number;
  /** The pid of the daemon started last (it may have died since). */
  readonly pid: number | undefined;
  /** The store worker id of the daemon started last (`<hostname>:<pid>:<random>`). */
  readonly workerId: string | undefined;
  start(): Promise<void>;
  /** Graceful stop (SIGTERM, SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL; resolves once the process is dead (a zombie counts as dead). Returns the kill time. */
  kill(): Promise<number>;
  running(): Promise<boolean>;
  /** An API client of its running daemon (chat, services, logs). */
  client(): Promise<DaemonClient>;
  channels(): Promise<ChannelsList>;
  /** The last lines of its logs (`.downcity/logs/*.jsonl`, `.downcity/debug/daemon.log`). */
  logTail(lines?: number): Promise<string>;
}

/** N workers of one agent on one fresh database. */
export interface WorkerCluster {
  readonly databaseUrl: string;
  readonly workers: readonly ClusterWorker[];
  /** The folder holding every worker's project and home. */
  readonly baseDir: string;
  startAll(): Promise<void>;
  /** One statement on the shared database. */
  query<Row extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Keeps the folders (logs) and the database after close, e.g. because the test failed. */
  keep(): void;
  /** Every worker's log tail, for a failure message. */
  logTails(lines?: number): Promise<string>;
  /** Stops every daemon, then drops the database and removes the folders (unless kept or KEEP_CLUSTER=1). */
  close(): Promise<void>;
}

let databases = 0;

/** Creates the database, the project folders and their downcity.json; starts nothing yet. */
export async function createWorkerCluster(options: WorkerClusterOptions): Promise<WorkerCluster> {
  const ownRuntime = options.runtime ? undefined : await prepareClusterRuntime();
  const runtime = options.runtime ?? (ownRuntime as ClusterRuntime);
  const database = `cluster_${process.pid}_${++databases}_${randomBytes(2).toString("hex")}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>) => {
    const client = new pg.Client({ connectionString: options.adminUrl });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`CREATE DATABASE ${database}`));
  const databaseUrl = options.adminUrl.replace(/\/postgres$/, `/${database}`);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  pool.on("error", () => {
    // An idle connection dropped (the server going away at teardown): the next query reconnects.
  });
  const baseDir = await mkdtemp(join(tmpdir(), "dc-cluster-"));
  const leaseMs = options.leaseMs ?? 3000;
  const workers: ClusterWorker[] = [];
  try {
    for (let index = 0; index < options.workers; index++)
      workers.push(await createWorker(index, { ...options, leaseMs }, baseDir, databaseUrl, runtime));
  } catch (error) {
    await pool.end().catch(() => {});
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(() => {});
    await rm(baseDir, { recursive: true, force: true });
    await ownRuntime?.dispose();
    throw error;
  }
  let kept = Boolean(process.env.KEEP_CLUSTER);
  let closed = false;
  return {
    databaseUrl,
    workers,
    baseDir,
    async startAll() {
      // One at a time: the first start migrates, and starts racing for CPU only slow each other down.
      for (const worker of workers) await worker.start();
    },
    async query<Row extends Record<string, unknown>>(sql: string, params: unknown[] = []) {
      return (await pool.query<Row>(sql, params)).rows;
    },
    keep() {
      kept = true;
    },
    async logTails(lines = 40) {
      const tails = await Promise.all(
        workers.map(
          async (worker) =>
            `--- worker ${worker.index} (${worker.rootDir}, pid ${worker.pid})\n${await worker.logTail(lines)}`,
        ),
      );
      return tails.join("\n");
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all(
        workers.map((worker) => worker.stop(3000).catch(() => worker.kill().catch(() => {}))),
      );
      await pool.end().catch(() => {});
      if (kept) {
        process.stderr.write(`worker cluster kept: folders ${baseDir}, database ${databaseUrl}\n`);
      } else {
        await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)).catch(
          () => {},
        );
        await rm(baseDir, { recursive: true, force: true });
      }
      await ownRuntime?.dispose();
    },
  };
}

async function createWorker(
  index: number,
  options: WorkerClusterOptions & { leaseMs: number },
  baseDir: string,
  databaseUrl: string,
  runtime: ClusterRuntime,
): Promise<ClusterWorker> {
  const rootDir = join(baseDir, `w${index}`, "project");
  const home = join(baseDir, `w${index}`, "home");
  const env: Record<string, string | undefined> = { ...process.env, DOWNCITY_HOME: home };
  for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];
  delete env.DOWNCITY_DAEMON_ENTRY;
  await mkdir(rootDir, { recursive: true });
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: options.modelUrl },
  });
  const hookPort = await freePort();
  const configPath = join(rootDir, "downcity.json");
  const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
  config.lanes = { maxConcurrency: options.maxConcurrency ?? 4 };
  config.channels = {
    hook: {
      adapter: "@downcity/adapters-webhook",
      listen: { host: "127.0.0.1", port: hookPort },
      url: options.hook.url,
      secret: options.hook.secret,
      access: options.hook.access ?? { dm: "open", groups: "open" },
    },
    ...options.channels,
  };
  config.store = { adapter: "@downcity/store-postgres", url: databaseUrl, leaseMs: options.leaseMs };
  options.configure?.(config, index);
  await writeFile(configPath, JSON.stringify(config, null, 2));
  for (const [path, content] of Object.entries(options.files ?? {})) {
    await mkdir(dirname(join(rootDir, path)), { recursive: true });
    await writeFile(join(rootDir, path), content);
  }
  const scope = join(rootDir, "node_modules", "@downcity");
  await mkdir(scope, { recursive: true });
  await symlink(runtime.storePackage, join(scope, "store-postgres"), "dir");
  await symlink(runtime.webhookPackage, join(scope, "adapters-webhook"), "dir");

  let pid: number | undefined;
  let workerId: string | undefined;
  const client = async () => createDaemonClient(await resolveDaemonTarget({ rootDir, env }));
  const channels = async (): Promise<ChannelsList> => {
    const answer = await (await client()).servicesCommand({ service: "channels", action: "list" });
    return answer.result as ChannelsList;
  };
  const running = async () => (await daemonStatus({ rootDir })).running;
  return {
    index,
    rootDir,
    env,
    hookPort,
    get pid() {
      return pid;
    },
    get workerId() {
      return workerId;
    },
    async start() {
      const started = await startDaemonDetached({
        rootDir,
        env,
        entry: runtime.daemonEntry,
        timeoutMs: options.startTimeoutMs ?? 30_000,
      });
      pid = started.pid;
      workerId = (await channels()).worker;
    },
    async stop(graceMs = 5000) {
      await stopDaemon({ rootDir, graceMs });
    },
    async kill() {
      if (pid === undefined) throw new Error(`worker ${index} was never started`);
      const at = Date.now();
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
      await until(async () => !(await running()), `worker ${index} (pid ${pid}) to die`, {
        timeoutMs: 10_000,
        intervalMs: 5,
      });
      return at;
    },
    running,
    client,
    channels,
    async logTail(lines = 40) {
      const parts: string[] = [];
      const { logsDir, logFile } = daemonPaths(rootDir);
      const files = existsSync(logsDir) ? (await readdir(logsDir)).sort() : [];
      for (const file of [...files.map((name) => join(logsDir, name)), logFile]) {
        const text = await readFile(file, "utf8").catch(() => "");
        if (text) parts.push(`${file}:\n${text.trimEnd().split("\n").slice(-lines).join("\n")}`);
      }
      return parts.join("\n");
    },
  };
}
