import type { ContextLease, ShellCallStore } from "@downcity/core";
import type { ToolSet } from "ai";
import { awaitShellAnswer } from "./await-shell-answer.js";
import { type AnnouncedJob, announcedJob, workerLeaseKey } from "./background-jobs.js";
import { routedShellTools } from "./serve-shell-calls.js";

/** A shell tool's answer when this worker has no such session (the shell engine's typed error). */
interface NotFound {
  error: "SESSION_NOT_FOUND";
  message: string;
}

const isNotFound = (value: unknown): value is NotFound =>
  typeof value === "object" && value !== null && (value as { error?: unknown }).error === "SESSION_NOT_FOUND";

/** How long a routed call waits for the owner's answer beyond the call's own wait (`shell_wait`'s timeout). */
export const routedCallSlackMs = 20_000;

/** What the model reads about a session another worker holds, when the call could not be made there. */
export function foreignSessionMessage(
  shellId: string,
  job: AnnouncedJob,
  here: string,
  state: "alive" | "lost" | "no-answer",
): string {
  const started = `Shell session ${shellId} (\`${job.command}\`, started ${job.startedAt}) runs on worker ${job.worker}, not on this worker (${here}): shell sessions stay on the worker that started them.`;
  if (state === "lost")
    return `${started} That worker stopped, so the session is lost; start it again if it is still needed.`;
  if (state === "no-answer")
    return `${started} The call was passed to that worker, which did not answer in time (it may be busy or cut off from the store). Try again, or tell the user the session is still running there.`;
  return `${started} That worker is alive and this chat's next runs go to it while the session lives; this run cannot reach the session. Tell the user it is still running there, or check it again in the next turn.`;
}

/** How long to wait for the owner's answer to a routed `tool` call. */
const answerWaitMs = (tool: string, input: unknown, slackMs: number) => {
  const waits = tool === "shell_wait" ? ((input as { timeout_ms?: number }).timeout_ms ?? 30_000) : 0;
  return waits + slackMs;
};

/** Where a worker finds the owner of a session it does not hold, and how it reaches that owner. */
export interface ForeignSessionOptions {
  workerId: string;
  /** The shared meta of the caller's context (sessions announced there), when it has one. */
  meta: () => Promise<Record<string, unknown>>;
  leases: Pick<ContextLease, "holder">;
  calls?: ShellCallStore;
  /** How long past the call's own wait the owner's answer is awaited [routedCallSlackMs]. */
  slackMs?: number;
}

/**
 * The outcome of a call on another worker's session: the owner's answer (what the call would
 * have returned there), or why it could not be made there: the owner is `alive` but no call
 * can be routed, `lost` with its worker, or gave `no-answer` in time.
 */
export type ForeignCallOutcome =
  | { answered: true; result: unknown }
  | { answered: false; job: AnnouncedJob; alive: boolean; state: "alive" | "lost" | "no-answer" };

/**
 * Routes shell call `tool` (input naming `shell_id`, a session this worker does not have) to the
 * worker that announced the session (in the store's session list, or the context's shared meta)
 * through the store, when it lives and the store carries shell calls. Undefined when no other
 * worker announced the session.
 */
export async function routeForeignCall(
  tool: string,
  input: Record<string, unknown>,
  options: ForeignSessionOptions & { signal?: AbortSignal },
): Promise<ForeignCallOutcome | undefined> {
  const { workerId, calls } = options;
  const shellId = input.shell_id;
  if (typeof shellId !== "string") return undefined;
  const job = (await calls?.find(shellId)) ?? announcedJob(await options.meta(), shellId);
  if (!job || job.worker === workerId) return undefined;
  const alive = (await options.leases.holder(workerLeaseKey(job.worker))) !== undefined;
  if (!alive) return { answered: false, job, alive, state: "lost" };
  if (!calls || !Object.hasOwn(routedShellTools, tool))
    return { answered: false, job, alive, state: "alive" };
  const id = await calls.request({ owner: job.worker, requestedBy: workerId, tool, input });
  const answer = await awaitShellAnswer(calls, id, {
    deadline: Date.now() + answerWaitMs(tool, input, options.slackMs ?? routedCallSlackMs),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (answer) return { answered: true, result: answer.result };
  return { answered: false, job, alive, state: "no-answer" };
}

/**
 * Wraps a run's shell tools: a call naming a session this worker does not have, which another
 * worker announced, is routed to that worker (`routeForeignCall`): the owner's result is the
 * tool's result here. Otherwise (or without an answer in time) it answers SESSION_NOT_FOUND with
 * the owner, whether it lives, and why.
 */
export function answerForeignSessions(tools: ToolSet, options: ForeignSessionOptions): ToolSet {
  const wrapped: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (!execute) {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: async (input: unknown, callOptions: Parameters<typeof execute>[1]) => {
        const result = await execute(input as never, callOptions);
        if (!isNotFound(result) || typeof input !== "object" || input === null) return result;
        const outcome = await routeForeignCall(name, input as Record<string, unknown>, {
          ...options,
          ...(callOptions.abortSignal ? { signal: callOptions.abortSignal } : {}),
        });
        if (!outcome) return result;
        if (outcome.answered) return outcome.result;
        const { job, alive, state } = outcome;
        return {
          error: result.error,
          message: foreignSessionMessage(
            String((input as { shell_id: unknown }).shell_id),
            job,
            options.workerId,
            state,
          ),
          owner: { worker: job.worker, alive },
        };
      },
    } as typeof tool;
  }
  return wrapped;
}
