import { join } from "node:path";
import { createScriptedModel } from "@downcity/core/scripted";
import { createDaemonClient, ensureToken, initProject, runDaemon } from "@downcity/daemon";

/**
 * A project under `base` with a DOWNCITY_HOME of its own, served by a daemon in this process over a
 * scripted model (no signal handlers, no built-in plug-ins), and a client of it. Colour is off unless
 * `colors` (a test of what a real terminal shows).
 */
export async function startScriptedDaemon(
  base: string,
  turns: Parameters<typeof createScriptedModel>[0],
  options: { colors?: boolean } = {},
) {
  const rootDir = join(base, "project");
  await initProject(rootDir);
  const env: Record<string, string | undefined> = { ...process.env, DOWNCITY_HOME: join(base, "home") };
  if (!options.colors) env.NO_COLOR = "1";
  for (const key of Object.keys(env))
    if (key.startsWith("DC_CTX_") || (options.colors && (key === "NO_COLOR" || key === "FORCE_COLOR")))
      delete env[key];
  const scripted = createScriptedModel(turns);
  const daemon = await runDaemon({ rootDir, env, handleSignals: false, plugins: [], model: scripted.model });
  const client = createDaemonClient({ host: daemon.host, port: daemon.port, token: await ensureToken(env) });
  return { rootDir, env, scripted, daemon, client };
}
