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

/**
 * Wraps a run's shell tools: a call naming a session this worker does not have, which another
 * worker announced (in the store's session list, or the context's shared meta), is routed to that
 * worker through the store when it lives and the store carries shell calls: the owner makes the
 * call and its result is the tool's result here. Otherwise (or without an answer in time) it
 * answers SESSION_NOT_FOUND with the owner, whether it lives, and why.
 */
export function answerForeignSessions(
  tools: ToolSet,
  options: {
    workerId: string;
    meta: () => Promise<Record<string, unknown>>;
    leases: Pick<ContextLease, "holder">;
    calls?: ShellCallStore;
    /** How long past the call's own wait the owner's answer is awaited [routedCallSlackMs]. */
    slackMs?: number;
  },
): ToolSet {
  const { workerId, calls } = options;
  const ownerOf = async (shellId: string): Promise<AnnouncedJob | undefined> => {
    const announced = await calls?.find(shellId);
    if (announced) return announced;
    return announcedJob(await options.meta(), shellId);
  };
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
        const shellId = (input as { shell_id?: unknown } | undefined)?.shell_id;
        if (!isNotFound(result) || typeof shellId !== "string") return result;
        const job = await ownerOf(shellId);
        if (!job || job.worker === workerId) return result;
        const alive = (await options.leases.holder(workerLeaseKey(job.worker))) !== undefined;
        let state: "alive" | "lost" | "no-answer" = alive ? "alive" : "lost";
        if (alive && calls && Object.hasOwn(routedShellTools, name)) {
          const id = await calls.request({
            owner: job.worker,
            requestedBy: workerId,
            tool: name,
            input: input as Record<string, unknown>,
          });
          const answer = await awaitShellAnswer(calls, id, {
            deadline: Date.now() + answerWaitMs(name, input, options.slackMs ?? routedCallSlackMs),
            ...(callOptions.abortSignal ? { signal: callOptions.abortSignal } : {}),
          });
          if (answer) return answer.result;
          state = "no-answer";
        }
        return {
          error: result.error,
          message: foreignSessionMessage(shellId, job, workerId, state),
          owner: { worker: job.worker, alive },
        };
      },
    } as typeof tool;
  }
  return wrapped;
}
