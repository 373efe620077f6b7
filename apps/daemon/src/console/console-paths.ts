import { join } from "node:path";
import { downcityHome } from "../token/downcity-home.js";

/** Files of the user-level console under `$DOWNCITY_HOME/console/`. */
export interface ConsolePaths {
  dir: string;
  pidFile: string;
  metaFile: string;
  logFile: string;
  agentsFile: string;
  agentsLock: string;
}

/** Resolves the console's files for an environment. */
export function consolePaths(env: Record<string, string | undefined> = process.env): ConsolePaths {
  const dir = join(downcityHome(env), "console");
  return {
    dir,
    pidFile: join(dir, "console.pid"),
    metaFile: join(dir, "console.json"),
    logFile: join(dir, "console.log"),
    agentsFile: join(dir, "agents.json"),
    agentsLock: join(dir, "agents.json.lock"),
  };
}
