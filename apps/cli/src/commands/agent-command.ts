import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";
import { findProjectRoot } from "../project/find-project-root.js";

type JsonOption = { json?: boolean };

/** `downcity agent on|off [dir]`: start the project's daemon and register it with the console, or undo both. */
export function registerAgentCommand(program: Command, io: CliIo): void {
  const agent = program
    .command("agent")
    .description("Register a project's agent with the console (and start/stop its daemon)");

  agent
    .command("on")
    .description("Check the console runs and the project is initialised, start the daemon, register it")
    .argument("[dir]", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const result = await api.agentOn({ rootDir });
      const pid = (result as { pid?: number } | undefined)?.pid;
      printData(io, result, {
        json: options.json,
        human: () => `Agent on: ${rootDir}${pid !== undefined ? ` (pid ${pid})` : ""}`,
      });
    });

  agent
    .command("off")
    .description("Stop the project's daemon and remove it from the console registry")
    .argument("[dir]", "project directory (default: the nearest folder with downcity.json)")
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const result = await api.agentOff({ rootDir });
      printData(io, result ?? { rootDir }, { json: options.json, human: () => `Agent off: ${rootDir}` });
    });
}
