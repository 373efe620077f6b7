import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type NodeRun, type RunNodeOptions, runNode } from "@downcity/testkit";

/** The built entry the tests run, exactly as the `downcity` bin does. */
export const cliMain = join(dirname(dirname(fileURLToPath(import.meta.url))), "dist", "main.js");

/** What one `downcity` run printed and how it ended. */
export type CliRun = NodeRun;

/**
 * Spawns `node dist/main.js ...args` and collects its output. `timeoutMs` (60 s by default, scaled
 * under CI) only guards against a hang: `start` on a machine at load 20 took over 20 s.
 */
export function runBuiltCli(args: string[], options: RunNodeOptions = {}): Promise<CliRun> {
  return runNode(cliMain, args, { timeoutMs: 60_000, ...options });
}
