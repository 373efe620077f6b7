/** The process surface a command touches, injected so commands never reach for globals directly. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** True when stdout is a terminal (colours, prompts). */
  interactive: boolean;
}

/** The real process's streams, environment and working directory. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    interactive: Boolean(process.stdout.isTTY && process.stdin.isTTY),
  };
}
