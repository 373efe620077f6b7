import { packageVersion } from "@downcity/core/primitives";
import { Command } from "commander";
import type { CliIo } from "./cli-io.js";
import { registerAgentCommand } from "./commands/agent-command.js";
import { registerChatCommand } from "./commands/chat-command.js";
import { registerConsoleCommand } from "./commands/console-command.js";
import { registerDemoCommand } from "./commands/demo-command.js";
import { registerDoctorCommand } from "./commands/doctor-command.js";
import { registerInitCommand } from "./commands/init-command.js";
import { registerLifecycleCommands } from "./commands/lifecycle-commands.js";
import { registerPluginsCommand } from "./commands/plugins-command.js";
import { registerRunCommand } from "./commands/run-command.js";
import { registerRunsCommand } from "./commands/runs-command.js";
import { registerServiceCommand } from "./commands/service-command.js";
import { registerStoreCommand } from "./commands/store-command.js";
import { registerUsageCommand } from "./commands/usage-command.js";

/** The version `downcity --version` prints: the published `downcity` package bundles this file; in the repository it is `@downcity/cli`. */
export const cliVersion =
  [packageVersion(import.meta.url, "downcity"), packageVersion(import.meta.url, "@downcity/cli")].find(
    (version) => version !== "0.0.0",
  ) ?? "0.0.0";

/** Names of the built-in commands; any other first word may be a service of the running daemon. */
export const builtinCommandNames = [
  "init",
  "run",
  "start",
  "stop",
  "restart",
  "status",
  "chat",
  "usage",
  "runs",
  "service",
  "store",
  "console",
  "agent",
  "plugins",
  "demo",
  "doctor",
  "help",
] as const;

/**
 * Builds the `downcity` program with every built-in command. Parsing never exits the process:
 * commander errors are thrown (exitOverride) so `runCli` maps them to exit codes. With `json`,
 * commander writes nothing to stderr, so `runCli` can report errors as JSON.
 */
export function createProgram(io: CliIo, options: { json?: boolean } = {}): Command {
  const program = new Command("downcity")
    .description("Turn a project folder into a long-running AI agent.")
    .version(cliVersion, "-V, --version", "print the version")
    .exitOverride()
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      // With --json, stderr carries only runCli's JSON error line.
      writeErr: (text) => (options.json ? true : io.stderr.write(text)),
    })
    .addHelpText(
      "before",
      [
        "Get started:",
        "  downcity init [dir]     make a folder an agent project (downcity.json, PROFILE.md)",
        "  downcity start          start the project's agent daemon in the background",
        "  downcity chat           talk to the agent (or: downcity chat send <text>)",
        "",
      ].join("\n"),
    )
    .addHelpText(
      "after",
      [
        "",
        "Service commands (e.g. `downcity shell list`) are derived from the running daemon's services.",
        "Exit codes: 0 ok, 1 error, 2 usage error, 3 not running (status commands, service commands without a daemon), 5 started but degraded (start, restart: a channel or plug-in failed).",
        'With --json, errors go to stderr as {"error":{"code","message","field"?}}.',
      ].join("\n"),
    );
  registerInitCommand(program, io);
  registerRunCommand(program, io);
  registerLifecycleCommands(program, io);
  registerChatCommand(program, io);
  registerUsageCommand(program, io);
  registerRunsCommand(program, io);
  registerServiceCommand(program, io);
  registerStoreCommand(program, io);
  registerConsoleCommand(program, io);
  registerAgentCommand(program, io);
  registerPluginsCommand(program, io);
  registerDemoCommand(program, io);
  registerDoctorCommand(program, io);
  return program;
}
