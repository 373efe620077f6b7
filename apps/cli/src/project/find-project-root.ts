import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * The project a command targets: `dir` exactly when given, else the nearest ancestor of `cwd`
 * holding a `downcity.json`, else `cwd` itself.
 */
export function findProjectRoot(cwd: string, dir?: string): string {
  if (dir !== undefined) return resolve(cwd, dir);
  let current = resolve(cwd);
  for (;;) {
    if (existsSync(join(current, "downcity.json"))) return current;
    const parent = dirname(current);
    if (parent === current) return resolve(cwd);
    current = parent;
  }
}
