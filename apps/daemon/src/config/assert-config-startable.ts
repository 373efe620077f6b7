import { daemonStatus } from "../process/daemon-status.js";
import { configReportError } from "./config-report-error.js";
import { type ProjectConfigProblem, validateProjectConfig } from "./validate-project-config.js";

/**
 * Refuses, before anything is stopped or spawned, a configuration the daemon would not run:
 * - `start`: what stops the daemon itself (the file, its sections, `start.port` taken); a channel
 *   or plug-in problem only degrades it, so those are returned for the caller to show.
 * - `restart`: every problem that would stop or degrade the new daemon (ports aside: the running
 *   daemon holds them), since a healthy daemon is never to be replaced by a broken or degraded one.
 * A model problem (no `llm`, no key) stops neither: the daemon runs and says so on each message, so
 * it is returned, like the others that do not refuse, for the caller to show.
 */
export async function assertConfigStartable(options: {
  rootDir: string;
  env?: Record<string, string | undefined>;
  mode: "start" | "restart";
}): Promise<ProjectConfigProblem[]> {
  const restart = options.mode === "restart";
  const report = await validateProjectConfig({
    rootDir: options.rootDir,
    ...(options.env ? { env: options.env } : {}),
    checkPorts: !restart,
  });
  const fatal = restart
    ? report.problems.filter((problem) => problem.kind !== "model")
    : report.problems.filter(
        (problem) => problem.kind === "config" || (problem.kind === "port" && problem.field === "start.port"),
      );
  if (fatal.length === 0) return report.problems;
  const count = fatal.length === 1 ? "a problem" : `${fatal.length} problems`;
  const running = restart ? await daemonStatus({ rootDir: options.rootDir }) : undefined;
  throw configReportError(
    restart
      ? `Not restarting: downcity.json has ${count}${running?.running ? `; the running daemon (pid ${running.pid}) keeps running` : ""}.`
      : `Not starting: downcity.json has ${count}.`,
    fatal,
  );
}
