/**
 * The exit codes of `downcity`: 0 ok, 1 error, 2 usage error, 3 "not running" (status commands),
 * 5 "started, degraded" (`start`/`restart`: the daemon runs, but a channel or plug-in failed to start).
 */
export const exitCodes = { ok: 0, error: 1, usage: 2, notRunning: 3, degraded: 5 } as const;

/** Thrown by a command that has already printed what it had to say and must end with a given exit code. */
export class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    message = `exit ${exitCode}`,
  ) {
    super(message);
    this.name = "CliExit";
  }
}

/** A usage problem found after parsing (bad JSON in --json-input, conflicting flags); exits with 2. */
export class CliUsageError extends Error {
  readonly exitCode = exitCodes.usage;
  constructor(message: string) {
    super(message);
    this.name = "CliUsageError";
  }
}
