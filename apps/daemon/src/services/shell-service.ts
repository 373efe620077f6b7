import { DowncityError, type DowncityErrorCode, defineService } from "@downcity/core";
import {
  type ShellEngine,
  ShellError,
  shellCloseInput,
  shellExecInput,
  shellListInput,
  shellReadInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "@downcity/shell";

const codes: Record<string, DowncityErrorCode> = {
  SESSION_NOT_FOUND: "NOT_FOUND",
  SESSION_EXITED: "CONFLICT",
  INVALID_INPUT: "INVALID_INPUT",
  SPAWN_FAILED: "INVALID_INPUT",
  SERVICE_EXISTS: "CONFLICT",
  ENGINE_CLOSED: "RUNTIME_CLOSED",
  COMMAND_REFUSED: "FORBIDDEN",
  SANDBOX_UNAVAILABLE: "INVALID_INPUT",
};

async function translate<Result>(run: () => Promise<Result>): Promise<Result> {
  try {
    return await run();
  } catch (error) {
    if (ShellError.isInstance(error)) {
      throw new DowncityError(codes[error.code] ?? "SERVICE_ERROR", error.message, { cause: error });
    }
    throw error;
  }
}

/** The `shell` service: the engine's sessions for the CLI and HTTP (`downcity shell list`, `read`, …). */
export function createShellService(engine: ShellEngine) {
  return defineService({
    name: "shell",
    description: "Shell sessions the agent started",
    actions: {
      list: {
        description: "List sessions",
        input: shellListInput,
        handler: (input) => translate(() => engine.list(input)),
      },
      status: {
        description: "Status of a session",
        input: shellStatusInput,
        handler: (input) => translate(() => engine.status(input)),
      },
      read: {
        description: "Read a session's output",
        input: shellReadInput,
        handler: (input) => translate(() => engine.read(input)),
      },
      write: {
        description: "Write to a session's stdin",
        input: shellWriteInput,
        handler: (input) => translate(() => engine.write(input)),
      },
      wait: {
        description: "Wait for exit or output",
        input: shellWaitInput,
        handler: (input) => translate(() => engine.wait(input)),
      },
      close: {
        description: "Terminate a session",
        input: shellCloseInput,
        handler: (input) => translate(() => engine.close(input)),
      },
      start: {
        description: "Start a session",
        input: shellStartInput,
        handler: (input, context) =>
          translate(() => engine.start(input, context.contextId ? { contextId: context.contextId } : {})),
      },
      exec: {
        description: "Run a command to completion",
        input: shellExecInput,
        handler: (input, context) =>
          translate(() => engine.exec(input, context.contextId ? { contextId: context.contextId } : {})),
      },
    },
    status: async () => {
      const live = await engine.list({ status: "live" });
      return { live: live.length };
    },
  });
}
