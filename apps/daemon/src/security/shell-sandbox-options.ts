import { join } from "node:path";
import { downcityPaths } from "@downcity/core/primitives";
import type { ShellSandboxOptions } from "@downcity/shell";
import { downcityHome } from "../token/downcity-home.js";

/**
 * The engine's sandbox for the `shell.sandbox` section, or undefined when it is off. Besides the
 * configured writable paths, the project's `.downcity` state stays read-only (a command cannot
 * forge history or shell snapshots), and the project's `.env` and the user-level folder holding the
 * token are hidden.
 */
export function shellSandboxOptions(
  section: { enabled: boolean; network: boolean; writable: string[] } | undefined,
  env: Record<string, string | undefined>,
  rootDir: string,
): ShellSandboxOptions | undefined {
  if (!section?.enabled) return undefined;
  return {
    network: section.network,
    writable: section.writable,
    readOnly: [downcityPaths(rootDir).stateDir],
    hidden: [downcityHome(env), join(rootDir, ".env")],
  };
}
