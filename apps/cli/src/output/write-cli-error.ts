import { CommanderError } from "commander";
import { CliUsageError, exitCodes } from "../cli-exit.js";
import type { CliIo } from "../cli-io.js";

/** An error as `downcity` reports it: a machine-readable code, the message, and the field to blame. */
export interface CliErrorReport {
  code: string;
  message: string;
  field?: string;
}

/** Codes of the failures the CLI itself detects (others keep the code the daemon or core gave them). */
export const cliErrorCodes = { usage: "USAGE_ERROR", notRunning: "NOT_RUNNING", error: "ERROR" } as const;

/** The report and exit code for anything a command threw: 2 for usage errors, 1 for every other failure. */
export function cliErrorReport(error: unknown): { report: CliErrorReport; exitCode: number } {
  if (error instanceof CommanderError) {
    return {
      report: { code: cliErrorCodes.usage, message: error.message.replace(/^error: /, "").trim() },
      exitCode: exitCodes.usage,
    };
  }
  if (error instanceof CliUsageError) {
    return { report: { code: cliErrorCodes.usage, message: error.message }, exitCode: exitCodes.usage };
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code;
  const field = (error as { field?: unknown } | undefined)?.field;
  const exitCode = (error as { exitCode?: unknown } | undefined)?.exitCode;
  return {
    report: {
      code: typeof code === "string" ? code : cliErrorCodes.error,
      message,
      ...(typeof field === "string" ? { field } : {}),
    },
    exitCode: exitCode === exitCodes.usage ? exitCodes.usage : exitCodes.error,
  };
}

/**
 * Writes an error to stderr: with `--json` as one `{"error":{"code","message","field"?}}` line so
 * scripts parse a single format, else as `downcity: <message>` (the message names what a person
 * needs; the machine's `field` is for scripts only).
 */
export function writeCliError(io: CliIo, report: CliErrorReport, options: { json: boolean }): void {
  if (options.json) {
    io.stderr.write(`${JSON.stringify({ error: report })}\n`);
    return;
  }
  io.stderr.write(`downcity: ${report.message}\n`);
}
