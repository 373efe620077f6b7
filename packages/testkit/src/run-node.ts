import { spawn } from "node:child_process";
import { scaledMs } from "./time-scale.js";

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
  /**
   * A hang guard, not a time budget: killed with SIGKILL after this long (default 30 s), stretched by
   * the test time scale (CI, `DOWNCITY_TEST_TIME_SCALE`) so a busy machine is not mistaken for a hang.
   */
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
    const limitMs = scaledMs(options.timeoutMs ?? 30_000);
    // Said in stderr, so a failed assertion on `code: null` shows why the run ended.
    const timer = setTimeout(() => {
      stderr += `\n[runNode] ${entry} ${args.join(" ")}: killed after ${limitMs} ms without exiting\n`;
      child.kill("SIGKILL");
    }, limitMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
