import type { Command } from "commander";
import { exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";
import { cliErrorCodes, writeCliError } from "../output/write-cli-error.js";
import { readServiceSchemaCache } from "../schema/service-schema-cache.js";
import { registerServiceActionCommands } from "./service-action-commands.js";

/** What `runCli` knows when a word that is not a built-in command meets no reachable daemon. */
export interface OfflineServiceCommandOptions {
  io: CliIo;
  program: Command;
  /** The non-option words of the command line, the service name first. */
  words: string[];
  /** True when the user asked for help (`--help`, `help <service>`, or the bare service name). */
  wantsHelp: boolean;
  json: boolean;
  rootDir: string;
  /** Why a daemon that seems to run could not be asked; undefined when none runs. */
  reason?: string;
}

/**
 * Answers `downcity <service> ...` when the project's daemon does not run: help from the schema
 * cached the last time a daemon answered (marked as cached), and in every case a message naming
 * `downcity start`, exit 3. Resolves to undefined when the cache proves the word is no service,
 * so the caller reports an unknown command instead.
 */
export async function answerOfflineServiceCommand(
  options: OfflineServiceCommandOptions,
): Promise<number | undefined> {
  const { io, program, words } = options;
  const name = words[0] as string;
  const cache = await readServiceSchemaCache(options.rootDir);
  const cached = cache?.services.find((service) => service.name === name);
  if (cache && !cached) return undefined;
  if (cache && cached && options.wantsHelp) {
    registerServiceActionCommands(program, io, [cached], async () => {
      throw new Error(`the daemon is not running; start it with "downcity start"`);
    });
    const group = program.commands.find((command) => command.name() === name);
    const action = group?.commands.find((command) => command.name() === words[1]);
    const shown = action ?? group;
    if (shown) {
      io.stdout.write(
        `(cached) ${name}: commands as of ${cache.savedAt}, when the daemon last answered; they run only while it runs.\n\n`,
      );
      io.stdout.write(shown.helpInformation());
    }
  }
  const state =
    options.reason === undefined ? "which is not running" : `which did not answer (${options.reason})`;
  const subject = cached
    ? `"${name}" is a service command of the project's daemon`
    : `"${name}" is not a built-in command, so it can only be a service command of the project's daemon`;
  const message = `${subject}, ${state}. Start it with "downcity start".`;
  writeCliError(io, { code: cliErrorCodes.notRunning, message }, { json: options.json });
  return exitCodes.notRunning;
}

/** Adds the services of the cached schema, marked as cached, to the top-level help when no daemon answers. */
export async function listCachedServices(program: Command, rootDir: string): Promise<void> {
  const cache = await readServiceSchemaCache(rootDir);
  if (!cache || cache.services.length === 0) return;
  const names = cache.services.map((service) => service.name).join(", ");
  program.addHelpText(
    "after",
    `\nService commands (cached ${cache.savedAt}; the daemon is not running, start it with \`downcity start\`): ${names}`,
  );
}
