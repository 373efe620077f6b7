import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@downcity/testkit";
import pg from "pg";

/** A throwaway PostgreSQL server for tests: Debian's binaries, a temporary data folder, trust auth on loopback. */
export interface TestPostgres {
  /** The superuser URL of database `name` (default `postgres`). */
  url(name?: string): string;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /**
   * Stops the server (fast shutdown: sessions are ended; `immediate`: no shutdown checkpoint, as a
   * crash would) and starts it again on the same port and data, after `downMs`.
   */
  restart(options?: { immediate?: boolean; downMs?: number; whileDown?: () => Promise<void> }): Promise<void>;
  /** What the server wrote to stderr since its last start. */
  log(): string;
  stop(): Promise<void>;
}

function binDir(): string {
  const base = "/usr/lib/postgresql";
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions)
    if (existsSync(join(base, version, "bin", "initdb"))) return join(base, version, "bin");
  throw new Error("PostgreSQL binaries not found under /usr/lib/postgresql: apt-get install postgresql");
}

/** Starts a server (`durable`: fsync on); as root the server runs as the `postgres` user, which refuses to run as root. */
export async function startTestPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "downcity-pg-"));
  const asRoot = process.getuid?.() === 0;
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args];
  if (asRoot) {
    const ids = execFileSync("id", ["-u", "postgres"]).toString().trim();
    const group = execFileSync("id", ["-g", "postgres"]).toString().trim();
    chownSync(dir, Number(ids), Number(group));
  }
  const data = join(dir, "data");
  const [initdb, initArgs] = command("initdb", [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "downcity",
    "-E",
    "UTF8",
    "--no-sync",
  ]);
  execFileSync(initdb, initArgs, { stdio: "ignore" });
  const port = await freePort();
  const [postgres, args] = command("postgres", [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    `unix_socket_directories=${dir}`,
    "-c",
    // Tests skip flushing for speed; benchmarks flush every commit, as production does.
    `fsync=${options.durable ? "on" : "off"}`,
    "-c",
    "max_connections=200",
  ]);
  const url = (name = "postgres") => `postgres://downcity@127.0.0.1:${port}/${name}`;
  let server = await launch(postgres, args, url());
  const stopServer = async (mode: "SIGINT" | "SIGQUIT") => {
    if (server.process.exitCode !== null || server.process.signalCode !== null) return;
    const exited = new Promise((resolve) => server.process.once("exit", resolve));
    // As root, `server` is runuser, which does not pass signals on: signal the postmaster itself
    // (SIGINT: fast shutdown, SIGQUIT: immediate), and kill both if it has not gone within 10 s, so
    // a run can never hang here.
    const postmaster = postmasterPid(data);
    signal(postmaster, mode);
    server.process.kill(mode);
    const backstop = setTimeout(() => {
      signal(postmaster, "SIGKILL");
      server.process.kill("SIGKILL");
    }, 10_000);
    await exited;
    clearTimeout(backstop);
  };
  return {
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart(options = {}) {
      await stopServer(options.immediate ? "SIGQUIT" : "SIGINT");
      if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs));
      await options.whileDown?.();
      server = await launch(postgres, args, url());
    },
    log: () => server.log(),
    async stop() {
      await stopServer("SIGINT");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Spawns the postmaster and resolves once it accepts connections (30 s at most). */
async function launch(
  program: string,
  args: string[],
  url: string,
): Promise<{ process: ChildProcess; log(): string }> {
  const server: ChildProcess = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return { process: server, log: () => log };
    } catch (error) {
      await client.end().catch(() => {});
      if (server.exitCode !== null || Date.now() > deadline)
        throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The postmaster's pid, from the first line of `postmaster.pid` in the data folder. */
function postmasterPid(data: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function signal(pid: number | undefined, name: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}
