import { CommanderError } from "commander";
import { CliExit, exitCodes } from "./cli-exit.js";
import { type CliIo, processIo } from "./cli-io.js";
import { registerServiceActionCommands } from "./commands/service-action-commands.js";
import { serviceListings } from "./commands/service-command.js";
import { builtinCommandNames, createProgram } from "./create-program.js";
import { connectDaemon } from "./daemon/connect-daemon.js";

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
 */
export async function runCli(options: RunCliOptions): Promise<number> {
  const io = options.io ?? processIo();
  const argv = options.argv;
  const program = createProgram(io);
  const words = argv.filter((arg) => !arg.startsWith("-"));
  // `downcity help shell` asks about the word after `help`.
  const first = words[0] === "help" && words[1] !== undefined ? words[1] : words[0];
  const builtin = first !== undefined && (builtinCommandNames as readonly string[]).includes(first);
  const wantsServices = first === undefined ? !argv.includes("--version") && !argv.includes("-V") : !builtin;
  let discoveryError: string | undefined;
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
    } catch (error) {
      discoveryError = error instanceof Error ? error.message : String(error);
    }
  }
  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return exitCodes.ok;
      if (error.code === "commander.unknownCommand" && discoveryError !== undefined) {
        io.stderr.write(
          `downcity: service commands come from a running daemon, and none was reachable: ${discoveryError}\n`,
        );
      }
      return exitCodes.usage;
    }
    if (error instanceof CliExit) return error.exitCode;
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    const message = error instanceof Error ? error.message : String(error);
    const field = (error as { field?: unknown }).field;
    const named = typeof field === "string" && !message.includes(field) ? ` (field: ${field})` : "";
    io.stderr.write(`downcity: ${message}${named}\n`);
    return exitCode === exitCodes.usage ? exitCodes.usage : exitCodes.error;
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
