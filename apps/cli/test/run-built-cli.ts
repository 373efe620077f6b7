import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type NodeRun, type RunNodeOptions, runNode } from "@downcity/testkit";

/** The built entry the tests run, exactly as the `downcity` bin does. */
export const cliMain = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist", "main.js");

/** What one `downcity` run printed and how it ended. */
export type CliRun = NodeRun;

/** Spawns `node dist/main.js ...args` and collects its output (killed after `timeoutMs`, 20 s by default). */
export function runBuiltCli(args: string[], options: RunNodeOptions = {}): Promise<CliRun> {
  return runNode(cliMain, args, { timeoutMs: 20000, ...options });
}
