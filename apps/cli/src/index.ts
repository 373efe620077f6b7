/** The complete public surface of @downcity/cli: run the `downcity` command in-process. */
export { CliExit, CliUsageError, exitCodes } from "./cli-exit.js";
export { type CliIo, processIo } from "./cli-io.js";
export { builtinCommandNames, cliVersion, createProgram } from "./create-program.js";
export { type RunCliOptions, runCli } from "./run-cli.js";
export {
  type ActionArgument,
  type ActionArguments,
  actionArguments,
  kebabCase,
} from "./schema/action-arguments.js";
