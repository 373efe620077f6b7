import type { Command } from "commander";
import { CliExit, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData, renderValue } from "../output/print-data.js";

type JsonOption = { json?: boolean };
type ConsoleState = { running?: boolean; pid?: number; host?: string; port?: number; agents?: unknown[] };

function describeConsole(state: ConsoleState): string {
  if (!state.running) return "Console: not running (start it with `downcity console start`)";
  const address = state.port !== undefined ? ` on http://${state.host ?? "127.0.0.1"}:${state.port}` : "";
  const agents = Array.isArray(state.agents) ? `, ${state.agents.length} agent(s) registered` : "";
  return `Console: running (pid ${state.pid ?? "?"})${address}${agents}`;
}

function agentsOf(result: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(result)) return result as Array<Record<string, unknown>>;
  const agents = (result as { agents?: unknown } | undefined)?.agents;
  return Array.isArray(agents) ? (agents as Array<Record<string, unknown>>) : [];
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
      const result = (await api.startConsole()) as ConsoleState;
      const state = { running: true, ...((result ?? {}) as ConsoleState) };
      printData(io, state, { json: options.json, human: () => describeConsole(state) });
    });

  consoleCommand
    .command("stop")
    .description("Stop the console")
    .option("--json", "print the result as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const result = await api.stopConsole();
      printData(io, result ?? { stopped: true }, { json: options.json, human: () => "Console: stopped" });
    });

  consoleCommand
    .command("status")
    .description("Show whether the console runs (exit code 3 when it does not); drops stale agents")
    .option("--json", "print the status as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const state = ((await api.consoleStatus()) ?? { running: false }) as ConsoleState;
      printData(io, state, { json: options.json, human: () => describeConsole(state) });
      if (!state.running) throw new CliExit(exitCodes.notRunning);
    });

  consoleCommand
    .command("agents")
    .description("List registered agents (stale entries are checked and removed)")
    .option("--json", "print the agents as JSON")
    .action(async (options: JsonOption) => {
      const api = await loadDaemonApi();
      const result = await api.listAgents();
      const agents = agentsOf(result);
      printData(io, result, {
        json: options.json,
        human: () =>
          agents.length === 0
            ? "No agents registered."
            : agents
                .map(
                  (agent) =>
                    `${String(agent.projectRoot ?? renderValue(agent))}  pid ${agent.pid ?? "?"}  since ${agent.startedAt ?? "?"}`,
                )
                .join("\n"),
      });
    });
}
