import { tool } from "ai";
import type { ShellCallOptions, ShellEngine } from "../engine/shell-engine.js";
import { ShellError } from "../shell-error.js";
import {
  shellCloseInput,
  shellExecInput,
  shellListToolInput,
  shellReadInput,
  shellSleepInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "../shell-inputs.js";
import { listSessions } from "./list-sessions.js";
import { type ShellSleepInterrupts, shellSleep } from "./shell-sleep.js";

/** Who the tools act for (the conversation and the current request), and what ends a `shell_sleep` early. */
export interface ShellToolsOptions {
  contextId?: string;
  requestId?: string;
  /** The run's cancellation: a sleeping `shell_sleep` returns `cancelled` when it aborts. */
  abortSignal?: AbortSignal;
  /** New messages for this conversation (they end a sleep) and where sleep progress goes. */
  sleep?: ShellSleepInterrupts;
  /** Clock for `shell_list` ages [Date.now]. */
  now?: () => number;
}

/** A typed error as the model sees it, so it can correct the call instead of the run failing. */
export interface ShellToolError {
  error: ShellError["code"];
  message: string;
}

async function guarded<Result>(run: () => Promise<Result>): Promise<Result | ShellToolError> {
  try {
    return await run();
  } catch (error) {
    if (ShellError.isInstance(error)) return { error: error.code, message: error.message };
    throw error;
  }
}

/**
 * Builds the AI SDK tools `shell_exec`, `shell_start`, `shell_status`, `shell_read`,
 * `shell_write`, `shell_wait`, `shell_close`, `shell_list` and `shell_sleep` over an engine;
 * build them per run so the context, request and cancellation are this run's.
 */
export function createShellTools(engine: ShellEngine, options: ShellToolsOptions = {}) {
  const call: ShellCallOptions = {
    ...(options.contextId !== undefined ? { contextId: options.contextId } : {}),
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
  };
  return {
    shell_exec: tool({
      description:
        "Run a short shell command to completion in the project root and return its exit code and output. " +
        "For commands that may run long, need progress checks or stdin, use shell_start instead.",
      inputSchema: shellExecInput,
      execute: (input) => guarded(() => engine.exec(input, call)),
    }),
    shell_start: tool({
      description:
        "Start a shell session (background job, or a named service such as a dev server) and return its " +
        "shell_id, status and first output. Short commands may finish during the call. You are told when it exits.",
      inputSchema: shellStartInput,
      execute: (input) => guarded(() => engine.start(input, call)),
    }),
    shell_status: tool({
      description: "Status of a shell session: running or not, exit code, bytes of output, idle time.",
      inputSchema: shellStatusInput,
      execute: (input) => guarded(() => engine.status(input)),
    }),
    shell_read: tool({
      description:
        "Read a session's output incrementally from a byte cursor (defaults to where you last read). " +
        'Pipe sessions keep stdout and stderr apart too: stream "stderr" reads only the errors.',
      inputSchema: shellReadInput,
      execute: (input) => guarded(() => engine.read(input)),
    }),
    shell_write: tool({
      description:
        "Write text to a session's stdin (answer prompts, drive REPLs) and return the output that follows. " +
        "Include a trailing \\n to press enter.",
      inputSchema: shellWriteInput,
      execute: (input) => guarded(() => engine.write(input)),
    }),
    shell_wait: tool({
      description:
        "Block until a session exits, prints new output, or prints something matching a pattern, up to a " +
        "timeout. Use this instead of polling.",
      inputSchema: shellWaitInput,
      execute: (input) => guarded(() => engine.wait(input)),
    }),
    shell_close: tool({
      description: "Terminate a session and every process it started, and release it.",
      inputSchema: shellCloseInput,
      execute: (input) => guarded(() => engine.close(input)),
    }),
    shell_list: tool({
      description:
        "List shell sessions, newest first: this conversation's (scope chat) or the whole project's " +
        "(scope workspace), with id, command, mode, status, exit code, age, bytes, and service name and readiness.",
      inputSchema: shellListToolInput,
      execute: (input) =>
        guarded(() => listSessions(engine, input, options.contextId, (options.now ?? Date.now)())),
    }),
    shell_sleep: tool({
      description:
        "Wait without running any process (instead of `sleep N`). Ends early when a new message arrives in " +
        "this conversation or the run is cancelled; returns how long it slept and why it stopped.",
      inputSchema: shellSleepInput,
      execute: (input, { abortSignal }) =>
        shellSleep(input, options.sleep, [options.abortSignal, abortSignal]),
    }),
  };
}

/** The tool set `createShellTools` returns. */
export type ShellTools = ReturnType<typeof createShellTools>;
