import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { CancelTarget } from "../../run/active-runs.js";
import type { CancelledRun, RunCancelStore } from "../../store/run-cancel-store.js";

// How long a requester still waits for an answer once the holder's claim ended (the run ends, then it answers).
const unheldGraceMs = 3000;

/** Cancels runs wherever they run among the workers of a store; see `createClusterCancel`. */
export interface ClusterCancel {
  /** Stops the matching runs here and on the worker that runs them; resolves with every run stopped. */
  cancel(target: CancelTarget): Promise<CancelledRun[]>;
  close(): void;
}

/** Options of `createClusterCancel`. */
export interface ClusterCancelOptions {
  cancels: RunCancelStore;
  runtime: Pick<AgentRuntime, "cancel" | "on">;
  workerId: string;
  logger: Logger;
  /** How often a worker running anything looks for requests of other workers [300 ms]. */
  pollMs?: number;
  /** How long a requester waits for the running worker's answer [15 s]. */
  answerWaitMs?: number;
  /** Requests older than this are no longer acted on (a later run of the context is not stopped by them) [30 s]. */
  maxAgeMs?: number;
}

/**
 * Cancel across workers: a cancel stops this worker's matching runs, records a request in the store
 * and, when another worker holds the context's claim, waits for its answer. Each worker, while it
 * runs anything, looks for requests matching its runs every `pollMs`, cancels them and answers.
 */
export function createClusterCancel(options: ClusterCancelOptions): ClusterCancel {
  const { cancels, runtime, workerId, logger } = options;
  const pollMs = options.pollMs ?? 300;
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const running = new Map<string, string>();
  const off = runtime.on((event) => {
    if (event.type === "run-start") running.set(event.requestId, event.contextId);
    else if (event.type === "run-end" || event.type === "run-error") running.delete(event.requestId);
  });
  let looking = false;
  const look = async () => {
    if (looking || running.size === 0) return;
    looking = true;
    try {
      const requests = await cancels.pending(
        { contextIds: [...new Set(running.values())], requestIds: [...running.keys()] },
        { worker: workerId, maxAgeMs },
      );
      for (const request of requests) {
        const stopped = await runtime.cancel(request.target);
        await cancels.answer(request.id, workerId, stopped);
        logger.info(
          { request: request.id, by: request.requestedBy, runs: stopped.length },
          "cancelled on request of another worker",
        );
      }
    } catch (error) {
      logger.warn(errorFields(error), "could not look for cancel requests of other workers; trying again");
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void look(), pollMs);
  timer.unref();

  return {
    async cancel(target) {
      const here = await runtime.cancel(target);
      const { id, holder } = await cancels.request(target, workerId);
      if (!holder) return here;
      const deadline = Date.now() + (options.answerWaitMs ?? 15_000);
      let unheldSince: number | undefined;
      while (Date.now() < deadline) {
        const request = await cancels.get(id);
        if (request?.cancelled) return [...here, ...request.cancelled];
        // The holder's claim ended: its answer follows the run's end closely, else it ran nothing matching.
        unheldSince = request?.held ? undefined : (unheldSince ?? Date.now());
        if (unheldSince !== undefined && Date.now() - unheldSince > unheldGraceMs) return here;
        await sleep(100);
      }
      logger.warn(
        { request: id, holder },
        "the worker running the context did not answer the cancel request in time",
      );
      return here;
    },
    close() {
      clearInterval(timer);
      off();
    },
  };
}
