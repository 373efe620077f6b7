import {
  DowncityError,
  type DowncityErrorCode,
  defineService,
  type ServiceActionContext,
} from "@downcity/core";
import {
  type ShellEngine,
  ShellError,
  type ShellListInput,
  shellCloseInput,
  shellExecInput,
  shellListInput,
  shellReadInput,
  shellStartInput,
  shellStatusInput,
  shellWaitInput,
  shellWriteInput,
} from "@downcity/shell";
import type { ForeignCallOutcome } from "../store/foreign-sessions.js";

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

const fromShellError = (error: ShellError) =>
  new DowncityError(codes[error.code] ?? "SERVICE_ERROR", error.message, { cause: error });

async function translate<Result>(run: () => Promise<Result>): Promise<Result> {
  try {
    return await run();
  } catch (error) {
    if (ShellError.isInstance(error)) throw fromShellError(error);
    throw error;
  }
}

/**
 * Where the shell service sends a call on a session this worker does not hold: `route` is set
 * with a shared store (the jobs component, with the same routing as the agent's shell tools).
 */
export interface ForeignShellCalls {
  /** This worker's id and the other workers' sessions, for a listing across workers. */
  list?: {
    workerId: string;
    others: (input: ShellListInput) => Promise<Record<string, unknown>[]>;
  };
  route?: (
    tool: string,
    input: Record<string, unknown>,
    call: { contextId?: string },
  ) => Promise<ForeignCallOutcome | undefined>;
}

/** A routed call's failure as the owner answered it (`{error, message}`, the tools' error shape). */
const isFailure = (value: unknown): value is { error: string; message: string } =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { error?: unknown }).error === "string" &&
  typeof (value as { message?: unknown }).message === "string" &&
  Object.keys(value).every((key) => key === "error" || key === "message");

/** What the operator reads when a call on another worker's session could not be made there. */
function foreignFailure(shellId: string, outcome: Extract<ForeignCallOutcome, { answered: false }>) {
  const { job, state } = outcome;
  const session = `Shell session ${shellId} (\`${job.command}\`, started ${job.startedAt}) belongs to worker ${job.worker}, not to this one: shell sessions stay on the worker that started them.`;
  if (state === "lost")
    return new DowncityError(
      "NOT_FOUND",
      `${session} That worker stopped, so the session was lost; start it again if it is still needed.`,
    );
  if (state === "no-answer")
    return new DowncityError(
      "SERVICE_ERROR",
      `${session} The call was passed to worker ${job.worker} through the store, and it did not answer in time (busy, or cut off from the store); try again, or ask that worker's daemon directly.`,
    );
  return new DowncityError(
    "NOT_FOUND",
    `${session} Worker ${job.worker} is alive, but this store does not carry shell calls between workers; ask that worker's daemon directly.`,
  );
}

/**
 * Makes `tool`'s call on this worker's engine; when the session is not here and another worker
 * announced it, routes the call to that worker and answers with its result, as if made here.
 */
async function onSession<Input extends { shell_id: string }>(
  tool: string,
  input: Input,
  context: ServiceActionContext,
  options: { local: (input: Input) => Promise<unknown>; foreign?: ForeignShellCalls },
): Promise<unknown> {
  try {
    return await options.local(input);
  } catch (error) {
    if (!ShellError.isInstance(error)) throw error;
    const route = options.foreign?.route;
    if (error.code !== "SESSION_NOT_FOUND" || !route) throw fromShellError(error);
    const outcome = await route(tool, input, context.contextId ? { contextId: context.contextId } : {});
    if (!outcome) throw fromShellError(error);
    if (!outcome.answered) throw foreignFailure(input.shell_id, outcome);
    if (isFailure(outcome.result))
      throw new DowncityError(codes[outcome.result.error] ?? "SERVICE_ERROR", outcome.result.message);
    return outcome.result;
  }
}

/**
 * The `shell` service: the engine's sessions for the CLI and HTTP (`downcity shell list`, `read`, …).
 * With `foreign`, `status`, `read`, `write`, `wait` and `close` on another worker's session are
 * routed to that worker, and `list` lists every worker's sessions, each with its worker.
 */
export function createShellService(engine: ShellEngine, options: { foreign?: ForeignShellCalls } = {}) {
  const { foreign } = options;
  return defineService({
    name: "shell",
    description: "Shell sessions the agent started",
    actions: {
      list: {
        description: "List sessions (with a shared store: every worker's, with a worker column)",
        input: shellListInput,
        handler: async (input) => {
          const local = await translate(() => engine.list(input));
          const across = foreign?.list;
          if (!across) return local;
          const here = local.map((entry) => ({ ...entry, worker: across.workerId }));
          return [...here, ...(await across.others(input))];
        },
      },
      status: {
        description: "Status of a session",
        input: shellStatusInput,
        handler: (input, context) =>
          onSession("shell_status", input, context, { foreign, local: (call) => engine.status(call) }),
      },
      read: {
        description: "Read a session's output",
        input: shellReadInput,
        handler: (input, context) =>
          onSession("shell_read", input, context, { foreign, local: (call) => engine.read(call) }),
      },
      write: {
        description: "Write to a session's stdin",
        input: shellWriteInput,
        handler: (input, context) =>
          onSession("shell_write", input, context, { foreign, local: (call) => engine.write(call) }),
      },
      wait: {
        description: "Wait for exit or output",
        input: shellWaitInput,
        handler: (input, context) =>
          onSession("shell_wait", input, context, { foreign, local: (call) => engine.wait(call) }),
      },
      close: {
        description: "Terminate a session",
        input: shellCloseInput,
        handler: (input, context) =>
          onSession("shell_close", input, context, { foreign, local: (call) => engine.close(call) }),
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
