import type { Command } from "commander";
import { CliExit, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";

type JsonOption = { json?: boolean };
type AgentRow = { projectRoot: string; pid: number; startedAt: string };

function describeAgents(agents: AgentRow[], removed: AgentRow[]): string {
  const lines = agents.map((agent) => `${agent.projectRoot}  pid ${agent.pid}  since ${agent.startedAt}`);
  if (agents.length === 0) lines.push("No agents registered (`downcity agent on [dir]` adds one).");
  for (const agent of removed)
    lines.push(`removed stale entry: ${agent.projectRoot} (pid ${agent.pid} is gone)`);
  return lines.join("\n");
}

/** `downcity console start|stop|status|agents`: the user-level console and its agent registry. */
export function registerConsoleCommand(program: Command, io: CliIo): void {
  const consoleCommand = program
    .command("console")
    .description("The user-level console: start, stop, status and the registered agents");

  consoleCommand
    .command("start")
    .description("Start the console in the background (state in $DOWNCITY_HOME/console/)")
    .option("--json", "print the result as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const started = await api.startConsole({ env: io.env });
      printData(io, started, {
        json: options.json,
        human: () =>
          `Console: ${started.alreadyRunning ? "already running" : "started"} (pid ${started.pid}) on http://${started.host}:${started.port}`,
      });
    });

  consoleCommand
    .command("stop")
    .description("Stop the console (registered agents keep running)")
    .option("--json", "print the result as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const stopped = await api.stopConsole({ env: io.env });
      printData(io, stopped, {
        json: options.json,
        human: () => (stopped.stopped ? `Console: stopped (pid ${stopped.pid})` : "Console: was not running"),
      });
    });

  consoleCommand
    .command("status")
    .description("Show whether the console runs and its live agents (exit code 3 when it does not run)")
    .option("--json", "print the status as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const status = await api.consoleStatus({ env: io.env });
      printData(io, status, {
        json: options.json,
        human: () =>
          [
            status.running
              ? `Console: running (pid ${status.pid}) on http://${status.host}:${status.port}`
              : "Console: not running (start it with `downcity console start`)",
            describeAgents(status.agents, status.removedAgents),
          ].join("\n"),
      });
      if (!status.running) throw new CliExit(exitCodes.notRunning);
    });

  consoleCommand
    .command("agents")
    .description(
      "List registered agents; entries whose process is gone (or whose pid was reused) are removed",
    )
    .option("--json", "print the agents as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const listed = await api.listAgents({ env: io.env });
      printData(io, listed, {
        json: options.json,
        human: () => describeAgents(listed.agents, listed.removed),
      });
    });
}
