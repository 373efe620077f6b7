import { createDaemonClient, ensureToken, type RunDaemonOptions, runDaemon } from "../src/index.js";

/** The daemon in this process over `model` (no signal handlers, no built-in plug-ins), and a client of it. */
export async function startInProcessDaemon(
  rootDir: string,
  env: NonNullable<RunDaemonOptions["env"]>,
  model: RunDaemonOptions["model"],
) {
  const daemon = await runDaemon({ rootDir, env, handleSignals: false, plugins: [], model });
  const client = createDaemonClient({ host: daemon.host, port: daemon.port, token: await ensureToken(env) });
  return { daemon, client };
}
