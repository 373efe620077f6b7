import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The script a detached daemon runs: `$DOWNCITY_DAEMON_ENTRY`, else `daemon-main.js` beside the built library. */
export function daemonEntry(env: Record<string, string | undefined> = process.env): string {
  if (env.DOWNCITY_DAEMON_ENTRY) return env.DOWNCITY_DAEMON_ENTRY;
  const beside = fileURLToPath(new URL("./daemon-main.js", import.meta.url));
  if (existsSync(beside)) return beside;
  // Running from sources (tests of dependants): use the package's build output.
  return fileURLToPath(new URL("../../dist/daemon-main.js", import.meta.url));
}
