import { inject } from "vitest";
import { createDaemonClient, initProject, readToken, startDaemonDetached, stopDaemon } from "../src/index.js";

/**
 * Initialises `rootDir` over a scripted model server and starts a real detached daemon for it;
 * the function it returns starts (or, after a kill, restarts) the daemon and gives a client. The stop is queued on `cleanups`.
 */
export async function startScriptedDetachedDaemon(options: {
  rootDir: string;
  env: Record<string, string | undefined>;
  modelUrl: string;
  cleanups: Array<() => Promise<unknown>>;
}) {
  const { rootDir, env } = options;
  options.cleanups.push(() => stopDaemon({ rootDir, graceMs: 1000 }));
  await initProject(rootDir, {
    llm: { provider: "openai-compatible", model: "scripted", baseURL: options.modelUrl },
  });
  const entry = inject("daemonEntry");
  return async () => {
    const daemon = await startDaemonDetached({ rootDir, env, entry });
    // The first start creates the user-level token; every later one reads the same.
    const token = (await readToken(env)) as string;
    return { daemon, client: createDaemonClient({ host: daemon.host, port: daemon.port, token }) };
  };
}
