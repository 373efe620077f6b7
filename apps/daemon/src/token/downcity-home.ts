import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The user-level state folder: `$DOWNCITY_HOME`, else `~/.downcity`. */
export function downcityHome(env: Record<string, string | undefined> = process.env): string {
  const override = env.DOWNCITY_HOME;
  return override ? resolve(override) : join(homedir(), ".downcity");
}
