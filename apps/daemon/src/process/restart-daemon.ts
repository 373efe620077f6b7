import { assertConfigStartable } from "../config/assert-config-startable.js";
import type { ProjectConfigProblem } from "../config/validate-project-config.js";
import { type StartDaemonOptions, startDaemonDetached } from "./start-daemon-detached.js";
import { stopDaemon } from "./stop-daemon.js";

/**
 * Restarts a project's daemon only if the new configuration passes the daemon's own validation:
 * on a problem that would stop or degrade it nothing is stopped and the error lists every problem.
 * Then stops the old daemon and starts the new one; `problems` are those that did not refuse (the model's).
 */
export async function restartDaemon(options: StartDaemonOptions & { graceMs?: number }): Promise<{
  pid: number;
  host: string;
  port: number;
  stoppedPid?: number;
  problems: ProjectConfigProblem[];
}> {
  const problems = await assertConfigStartable({
    rootDir: options.rootDir,
    env: options.env ?? process.env,
    mode: "restart",
  });
  const stopped = await stopDaemon({
    rootDir: options.rootDir,
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  const started = await startDaemonDetached(options);
  return { ...started, ...(stopped.pid !== undefined ? { stoppedPid: stopped.pid } : {}), problems };
}
