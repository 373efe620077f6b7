import { tool } from "ai";
import type { ShellCallOptions, ShellEngine } from "../engine/shell-engine.js";
import { ShellError } from "../shell-error.js";
import {
  shellCloseInput,
  shellExecInput,
  shellReadInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "../shell-inputs.js";

/** Who the tools act for: the conversation (context) and the current request. */
export interface ShellToolsOptions {
  contextId?: string;
  requestId?: string;
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
 * `shell_write`, `shell_wait` and `shell_close` over an engine; build them per run so the
 * context and request ids are this run's.
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
        "Read a session's output incrementally from a byte cursor (defaults to where you last read).",
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
  };
}

/** The tool set `createShellTools` returns. */
export type ShellTools = ReturnType<typeof createShellTools>;
