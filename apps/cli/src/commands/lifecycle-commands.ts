import { type DaemonStatus, daemonStatus } from "@downcity/daemon/client";
import type { Command } from "commander";
import { CliExit, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";
import { withProgress } from "../output/progress.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { parseIntegerValue } from "./parse-option-value.js";

type JsonOption = { json?: boolean };

function describeStatus(rootDir: string, status: DaemonStatus): string {
  if (!status.running) {
    return `Not running: ${rootDir}${status.staleCleaned ? " (removed a stale pid file)" : ""}`;
  }
  const parts = [`Running: ${rootDir}`, `  pid      ${status.pid ?? "?"}`];
  if (status.port !== undefined) parts.push(`  address  http://${status.host ?? "127.0.0.1"}:${status.port}`);
  if (status.startedAt) parts.push(`  started  ${status.startedAt}`);
  if (status.version) parts.push(`  version  ${status.version}`);
  return parts.join("\n");
}

/** `downcity start|stop|restart|status [dir]`: the detached daemon of a project. */
export function registerLifecycleCommands(program: Command, io: CliIo): void {
  const dirArgument = [
    "[dir]",
    "project directory (default: the nearest folder with downcity.json)",
  ] as const;

  const startAndReport = async (
    rootDir: string,
    api: Awaited<ReturnType<typeof loadDaemonApi>>,
    json: boolean | undefined,
  ) => {
    await withProgress(io, "Starting the daemon", { json }, () => api.startDaemonDetached({ rootDir }));
    const status = await api.daemonStatus({ rootDir });
    printData(io, { rootDir, ...status }, { json, human: () => describeStatus(rootDir, status) });
  };

  program
    .command("start")
    .description("Start the project's daemon in the background (.downcity/debug/daemon.{pid,json,log})")
    .argument(...dirArgument)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      await startAndReport(rootDir, await loadDaemonApi(), options.json);
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
    .description("Stop the project's daemon if it runs, then start it in the background")
    .argument(...dirArgument)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      await withProgress(io, "Stopping the daemon", options, () => api.stopDaemon({ rootDir }));
      await startAndReport(rootDir, api, options.json);
    });

  program
    .command("status")
    .description("Show whether the project's daemon runs (exit code 3 when it does not)")
    .argument(...dirArgument)
    .option("--json", "print the status as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const status = await daemonStatus({ rootDir });
      printData(
        io,
        { rootDir, ...status },
        {
          json: options.json,
          human: () => describeStatus(rootDir, status),
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
