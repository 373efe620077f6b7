import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway DOWNCITY_HOME and project folder, removed by `cleanup()`. */
export async function createTempWorld(prefix = "dc-daemon-") {
  const base = await mkdtemp(join(tmpdir(), prefix));
  const home = join(base, "home");
  const env = { ...process.env, DOWNCITY_HOME: home } as Record<string, string | undefined>;
  for (const key of Object.keys(env)) if (key.startsWith("DC_CTX_")) delete env[key];
  return {
    base,
    home,
    env,
    project: (name = "project") => join(base, name),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
