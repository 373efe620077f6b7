import type { ContextLease } from "@downcity/core";
import type { ToolSet } from "ai";
import { type AnnouncedJob, announcedJob, workerLeaseKey } from "./background-jobs.js";

/** A shell tool's answer when this worker has no such session (the shell engine's typed error). */
interface NotFound {
  error: "SESSION_NOT_FOUND";
  message: string;
}

const isNotFound = (value: unknown): value is NotFound =>
  typeof value === "object" && value !== null && (value as { error?: unknown }).error === "SESSION_NOT_FOUND";

/** What the model reads about a session another worker holds. */
export function foreignSessionMessage(
  shellId: string,
  job: AnnouncedJob,
  here: string,
  alive: boolean,
): string {
  const started = `Shell session ${shellId} (\`${job.command}\`, started ${job.startedAt}) runs on worker ${job.worker}, not on this worker (${here}): shell sessions stay on the worker that started them.`;
  return alive
    ? `${started} That worker is alive and this chat's next runs go to it while the session lives; this run cannot reach the session. Tell the user it is still running there, or check it again in the next turn.`
    : `${started} That worker stopped, so the session is lost; start it again if it is still needed.`;
}

/**
 * Wraps a run's shell tools: a call naming a session this worker does not have, but which the
 * context's shared meta lists on another worker, answers with the owner, whether it lives, and why
 * (instead of a bare SESSION_NOT_FOUND).
 */
export function answerForeignSessions(
  tools: ToolSet,
  options: {
    workerId: string;
    meta: () => Promise<Record<string, unknown>>;
    leases: Pick<ContextLease, "holder">;
  },
): ToolSet {
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
        const job = announcedJob(await options.meta(), shellId);
        if (!job || job.worker === options.workerId) return result;
        const alive = (await options.leases.holder(workerLeaseKey(job.worker))) !== undefined;
        return {
          error: result.error,
          message: foreignSessionMessage(shellId, job, options.workerId, alive),
          owner: { worker: job.worker, alive },
        };
      },
    } as typeof tool;
  }
  return wrapped;
}
