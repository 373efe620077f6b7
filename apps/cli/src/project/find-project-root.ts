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

/** The error of a command that needs a project where there is none. */
export class NoProjectError extends Error {
  readonly code = "CONFIG_NOT_FOUND";
  constructor(
    readonly where: string,
    explicit: boolean,
  ) {
    super(
      explicit
        ? `No downcity.json in ${where}: no daemon can run there. Create a project with \`downcity init ${where}\`.`
        : `No downcity.json here (${where}) or in a parent folder: no daemon can run here. Create a project with \`downcity init\`.`,
    );
    this.name = "NoProjectError";
  }
}

/** Like `findProjectRoot`, but a folder without a `downcity.json` (here or above) is an error, before anything is spawned. */
export function requireProjectRoot(cwd: string, dir?: string): string {
  const rootDir = findProjectRoot(cwd, dir);
  if (!existsSync(join(rootDir, "downcity.json"))) throw new NoProjectError(rootDir, dir !== undefined);
  return rootDir;
}
