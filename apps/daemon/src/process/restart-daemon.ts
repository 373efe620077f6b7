import { configReportError } from "../config/config-report-error.js";
import { validateProjectConfig } from "../config/validate-project-config.js";
import { daemonStatus } from "./daemon-status.js";
import { type StartDaemonOptions, startDaemonDetached } from "./start-daemon-detached.js";
import { stopDaemon } from "./stop-daemon.js";

/**
 * Restarts a project's daemon only if the new configuration passes the daemon's own validation:
 * on any problem (ports aside, which the running daemon holds) nothing is stopped and the error
 * lists every problem. Then stops the old daemon and starts the new one.
 */
export async function restartDaemon(
  options: StartDaemonOptions & { graceMs?: number },
): Promise<{ pid: number; host: string; port: number; stoppedPid?: number }> {
  const env = options.env ?? process.env;
  const report = await validateProjectConfig({ rootDir: options.rootDir, env });
  if (report.problems.length > 0) {
    const running = await daemonStatus({ rootDir: options.rootDir });
    throw configReportError(
      `Not restarting: downcity.json has ${report.problems.length === 1 ? "a problem" : `${report.problems.length} problems`}` +
        `${running.running ? `; the running daemon (pid ${running.pid}) keeps running` : ""}.`,
      report.problems,
    );
  }
  const stopped = await stopDaemon({
    rootDir: options.rootDir,
    ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
  });
  const started = await startDaemonDetached(options);
  return { ...started, ...(stopped.pid !== undefined ? { stoppedPid: stopped.pid } : {}) };
}
