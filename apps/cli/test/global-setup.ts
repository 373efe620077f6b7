import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = dirname(dirname(fileURLToPath(import.meta.url)));

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The tests spawn the built CLI, so (re)build it when dist is missing or older than src. */
export default function setup(): void {
  const main = join(cliDir, "dist", "main.js");
  if (!existsSync(main) || statSync(main).mtimeMs < newestSource(join(cliDir, "src"))) {
    execFileSync(join(cliDir, "..", "..", "node_modules", ".bin", "tsup"), { cwd: cliDir, stdio: "ignore" });
  }
}
