import type { Command } from "commander";
import type { CliIo } from "../cli-io.js";
import { loadDaemonApi } from "../daemon/load-daemon-api.js";
import { printData } from "../output/print-data.js";
import { withProgress } from "../output/progress.js";
import { findProjectRoot } from "../project/find-project-root.js";
import { parseIntegerValue } from "./parse-option-value.js";

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
      const result = await withProgress(io, "Starting the agent", options, () =>
        api.agentOn({ rootDir, env: io.env }),
      );
      printData(io, result, {
        json: options.json,
        human: () =>
          `Agent on: ${result.projectRoot} (pid ${result.pid}, http://${result.host}:${result.port})`,
      });
    });

  agent
    .command("off")
    .description("Stop the project's daemon and remove it from the console registry")
    .argument("[dir]", "project directory (default: the nearest folder with downcity.json)")
    .option("--grace <ms>", "milliseconds to wait after SIGTERM before SIGKILL", parseIntegerValue)
    .option("--json", "print the result as JSON")
    .action(async (dir: string | undefined, options: JsonOption & { grace?: number }) => {
      const rootDir = findProjectRoot(io.cwd, dir);
      const api = await loadDaemonApi();
      const result = await withProgress(io, "Stopping the agent", options, () =>
        api.agentOff({
          rootDir,
          env: io.env,
          ...(options.grace !== undefined ? { graceMs: options.grace } : {}),
        }),
      );
      printData(
        io,
        { rootDir, ...result },
        {
          json: options.json,
          human: () =>
            `Agent off: ${rootDir} (${result.stopped ? `stopped pid ${result.pid}` : "daemon was not running"}, ${result.deregistered ? "deregistered" : "was not registered"})`,
        },
      );
    });
}
