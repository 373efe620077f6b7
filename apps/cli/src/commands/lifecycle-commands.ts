import type { ProjectConfigProblem } from "@downcity/daemon";
import { type DaemonStatus, daemonStatus } from "@downcity/daemon/status";
import type { Command } from "commander";
import { CliExit, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { type DaemonFailure, daemonFailures, describeFailures } from "../daemon/daemon-failures.js";
import { type DaemonApi, loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";
import { withProgress } from "../output/progress.js";
import { findProjectRoot, requireProjectRoot } from "../project/find-project-root.js";
import { parseIntegerValue } from "./parse-option-value.js";

type JsonOption = { json?: boolean };

function describeStatus(
  rootDir: string,
  status: DaemonStatus,
  failures: readonly DaemonFailure[] = [],
): string {
  if (!status.running) {
    return `Not running: ${rootDir}${status.staleCleaned ? " (removed a stale pid file)" : ""}`;
  }
  const parts = [
    `${failures.length > 0 ? "Running, degraded" : "Running"}: ${rootDir}`,
    `  pid      ${status.pid ?? "?"}`,
  ];
  if (status.port !== undefined) parts.push(`  address  http://${status.host ?? "127.0.0.1"}:${status.port}`);
  if (status.startedAt) parts.push(`  started  ${status.startedAt}`);
  if (status.version) parts.push(`  version  ${status.version}`);
  if (failures.length > 0) {
    parts.push(
      `${failures.length === 1 ? "One part" : `${failures.length} parts`} failed to start (the rest runs):`,
      describeFailures(failures),
      "Fix downcity.json (`downcity doctor --offline` checks it), then `downcity restart`.",
    );
  }
  return parts.join("\n");
}

/** Refuses a configuration the daemon would not run, before spawning; warns of a missing model key. */
async function refuseBrokenStart(io: CliIo, api: DaemonApi, rootDir: string, json?: boolean): Promise<void> {
  warnOfModel(io, api, await api.assertConfigStartable({ rootDir, env: io.env, mode: "start" }), json);
}

/** The daemon runs without a model key; say so now rather than at the first message. */
function warnOfModel(
  io: CliIo,
  api: DaemonApi,
  problems: readonly ProjectConfigProblem[],
  json?: boolean,
): void {
  const model = problems.filter((problem) => problem.kind === "model");
  if (model.length > 0 && !json) io.stderr.write(`downcity: warning:\n${api.describeProblems(model)}\n`);
}

/** `downcity start|stop|restart|status [dir]`: the detached daemon of a project. */
export function registerLifecycleCommands(program: Command, io: CliIo): void {
  const dirArgument = [
    "[dir]",
    "project directory (default: the nearest folder with downcity.json)",
  ] as const;

  /** Prints the started daemon and what of it failed; exit 5 ("started, degraded") when something did. */
  const reportStarted = async (rootDir: string, json: boolean | undefined) => {
    const status = await daemonStatus({ rootDir });
    const failures = status.running ? await daemonFailures(io, rootDir, status) : [];
    printData(
      io,
      { rootDir, ...status, ...(failures.length > 0 ? { degraded: failures } : {}) },
      { json, human: () => describeStatus(rootDir, status, failures) },
    );
    if (failures.length > 0) throw new CliExit(exitCodes.degraded, "started, degraded");
  };

  program
    .command("start")
    .description(
      "Start the project's daemon in the background (.downcity/debug/daemon.{pid,json,log}); exit 5 when a channel or plug-in failed",
    )
    .argument(...dirArgument)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = requireProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      // A running daemon holds the ports: startDaemonDetached names it instead.
      if (!(await api.daemonStatus({ rootDir })).running)
        await refuseBrokenStart(io, api, rootDir, options.json);
      await withProgress(io, "Starting the daemon", options, () => api.startDaemonDetached({ rootDir }));
      await reportStarted(rootDir, options.json);
    });

  program
    .command("stop")
    .description("Stop the project's daemon: SIGTERM, then SIGKILL after the grace period")
    .argument(...dirArgument)
    .option("--grace <ms>", "milliseconds to wait after SIGTERM before SIGKILL", parseIntegerValue)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption & { grace?: number }) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const result = await withProgress(io, "Stopping the daemon", options, () =>
        api.stopDaemon({
          rootDir,
          ...(options.grace !== undefined ? { graceMs: options.grace } : {}),
        }),
      );
      printData(
        io,
        { rootDir, ...result },
        {
          json: options.json,
          human: () => describeStop(rootDir, result),
        },
      );
    });

  program
    .command("restart")
    .description(
      "Check the configuration, then stop the project's daemon and start it again; on a problem the running daemon is left alone (exit 1)",
    )
    .argument(...dirArgument)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = requireProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const restarted = await withProgress(io, "Checking the configuration, then restarting", options, () =>
        api.restartDaemon({ rootDir }),
      );
      warnOfModel(io, api, restarted.problems, options.json);
      await reportStarted(rootDir, options.json);
    });

  program
    .command("status")
    .description(
      "Show whether the project's daemon runs and what of it failed to start (exit code 3 when it does not run)",
    )
    .argument(...dirArgument)
    .option("--json", "print the status as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const status = await daemonStatus({ rootDir });
      const failures = status.running ? await daemonFailures(io, rootDir, status) : [];
      printData(
        io,
        { rootDir, ...status, ...(failures.length > 0 ? { degraded: failures } : {}) },
        {
          json: options.json,
          human: () => describeStatus(rootDir, status, failures),
        },
      );
      if (!status.running) throw new CliExit(exitCodes.notRunning);
    });
}

function describeStop(
  rootDir: string,
  result: { stopped: boolean; pid?: number; killed?: boolean; staleCleaned?: boolean },
): string {
  if (!result.stopped)
    return `Not running: ${rootDir}${result.staleCleaned ? " (removed a stale pid file)" : ""}`;
  return `Stopped: ${rootDir} (pid ${result.pid ?? "?"}${result.killed ? ", SIGKILL after the grace period" : ""})`;
}
