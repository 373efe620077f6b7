import { spawn } from "node:child_process";

/** What one run printed and how it ended (`code` null when it was killed). */
export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunNodeOptions {
  cwd?: string;
  /** Over `process.env`. Inherited `DC_CTX_*` variables (a shell's context) are dropped unless given here. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed (empty by default). */
  input?: string;
  /** Killed with SIGKILL after this long. Default 30 s. */
  timeoutMs?: number;
  /** Options for node itself, before the entry (e.g. `--import` of a preload). */
  nodeArgs?: string[];
}

/** Spawns `node <entry> ...args` with this process's Node and collects its output. */
export function runNode(entry: string, args: string[], options: RunNodeOptions = {}): Promise<NodeRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    // A test started from inside an agent's shell must not run its children in that agent's context.
    for (const name of Object.keys(env))
      if (name.startsWith("DC_CTX_") && !options.env?.[name]) delete env[name];
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), entry, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: env as NodeJS.ProcessEnv,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
