import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built entry the tests run, exactly as the `downcity` bin does. */
export const cliMain = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist", "main.js");

/** What one `downcity` run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node dist/main.js ...args` and collects its output. */
export function runBuiltCli(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    timeoutMs?: number;
    /** Options for node itself, before the entry (e.g. `--import` of a preload). */
    nodeArgs?: string[];
  } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    for (const name of Object.keys(env))
      if (name.startsWith("DC_CTX_") && !options.env?.[name]) delete env[name];
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), cliMain, ...args], {
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
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}
