import { CommanderError } from "commander";
import { CliExit, exitCodes } from "./cli-exit.js";
import { type CliIo, processIo } from "./cli-io.js";
import { registerServiceActionCommands } from "./commands/service-action-commands.js";
import { serviceListings } from "./commands/service-command.js";
import { builtinCommandNames, createProgram } from "./create-program.js";
import { connectDaemon } from "./daemon/connect-daemon.js";
import type { ServiceListing } from "./daemon/load-daemon-api.js";
import { cliErrorReport, writeCliError } from "./output/write-cli-error.js";
import { findProjectRoot } from "./project/find-project-root.js";

/** Options of `runCli`. */
export interface RunCliOptions {
  /** Arguments after the program name, e.g. `["chat", "send", "hi"]`. */
  argv: string[];
  io?: CliIo;
}

const discoveryTimeoutMs = 3000;

/** The value of `--dir <d>` / `--dir=<d>` anywhere in argv, read before commander parses. */
function dirFromArgv(argv: string[]): string | undefined {
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === "--dir") return argv[index + 1];
    if (arg.startsWith("--dir=")) return arg.slice("--dir=".length);
  }
  return undefined;
}

/**
 * Runs `downcity` with the given arguments and resolves to its exit code: 0 ok, 1 error,
 * 2 usage error, 3 not running. Service subcommands are discovered from the daemon only when
 * the first word is not a built-in command (or for top-level help), so built-ins stay fast.
 * With `--json`, errors are written to stderr as `{"error":{"code","message","field"?}}`.
 */
export async function runCli(options: RunCliOptions): Promise<number> {
  const io = options.io ?? processIo();
  const argv = options.argv;
  const json = argv.includes("--json");
  const program = createProgram(io, { json });
  // The value of --dir is no command word.
  const words = argv.filter((arg, index) => !arg.startsWith("-") && argv[index - 1] !== "--dir");
  // `downcity help shell` asks about the word after `help`.
  const asksHelp = words[0] === "help" && words[1] !== undefined;
  const serviceWords = asksHelp ? words.slice(1) : words;
  const first = serviceWords[0];
  // `channels login` binds a channel without a daemon; the rest of `channels` is the daemon's service.
  const channelsLogin = first === "channels" && serviceWords[1] === "login";
  // Loaded only for that command: it brings the WeChat client and zod, which `--version` must not load.
  if (channelsLogin)
    (await import("./commands/channels-login-command.js")).registerChannelsLoginCommand(program, io);
  const builtin =
    channelsLogin || (first !== undefined && (builtinCommandNames as readonly string[]).includes(first));
  const wantsServices = first === undefined ? !argv.includes("--version") && !argv.includes("-V") : !builtin;
  let discoveryError: { message: string; notRunning: boolean } | undefined;
  const rootDir = () => findProjectRoot(io.cwd, dirFromArgv(argv));
  if (wantsServices) {
    try {
      const connection = await withTimeout(connectDaemon(io, { dir: dirFromArgv(argv) }), discoveryTimeoutMs);
      const services = serviceListings(
        await withTimeout(connection.client.servicesList(), discoveryTimeoutMs),
      );
      registerServiceActionCommands(program, io, services, async () => connection);
      for (const command of program.commands) {
        if (!(builtinCommandNames as readonly string[]).includes(command.name()))
          command.option("--dir <dir>", "project directory");
      }
      await saveServiceSchemas(rootDir(), services);
    } catch (error) {
      discoveryError = {
        message: error instanceof Error ? error.message : String(error),
        // resolveDaemonTarget's NOT_FOUND means no daemon runs for the project.
        notRunning: (error as { code?: unknown }).code === "NOT_FOUND",
      };
    }
  }
  if (discoveryError !== undefined) {
    const { answerOfflineServiceCommand, listCachedServices } = await import(
      "./commands/offline-service-command.js"
    );
    if (first === undefined) {
      await listCachedServices(program, rootDir());
    } else if (!builtin) {
      const answered = await answerOfflineServiceCommand({
        io,
        program,
        words: serviceWords,
        wantsHelp: asksHelp || argv.includes("--help") || argv.includes("-h") || serviceWords.length === 1,
        json,
        rootDir: rootDir(),
        ...(discoveryError.notRunning ? {} : { reason: discoveryError.message }),
      });
      if (answered !== undefined) return answered;
    }
  }
  if (argv.length === 0) {
    // A newcomer's first command: help on stdout, not a usage error.
    program.outputHelp();
    return exitCodes.ok;
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CliExit) return error.exitCode;
    const isCommanderError = error instanceof CommanderError;
    if (isCommanderError && error.exitCode === 0) return exitCodes.ok;
    const { report, exitCode } = cliErrorReport(error);
    // Commander already printed its own message unless --json silenced it.
    if (json || !isCommanderError) writeCliError(io, report, { json });
    if (!json && isCommanderError && error.code === "commander.unknownCommand" && discoveryError) {
      io.stderr.write(
        `downcity: service commands come from a running daemon, and none was reachable: ${discoveryError.message}\n`,
      );
    }
    return exitCode;
  }
}

/** Caches the daemon's service schemas for help without a daemon; a failure to cache never fails the command. */
async function saveServiceSchemas(rootDir: string, services: ServiceListing[]): Promise<void> {
  try {
    const { writeServiceSchemaCache } = await import("./schema/service-schema-cache.js");
    await writeServiceSchemaCache(rootDir, services, new Date());
  } catch {
    // The cache only improves help while the daemon is down.
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
