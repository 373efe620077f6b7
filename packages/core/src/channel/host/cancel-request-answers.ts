import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { CancelRequest, RunCancelStore } from "../../store/run-cancel-store.js";

/** Options of `answerCancelRequests`. */
export interface CancelRequestAnswersOptions {
  cancels: RunCancelStore;
  runtime: Pick<AgentRuntime, "cancel" | "on">;
  workerId: string;
  logger: Logger;
  /** How often a worker running anything looks for requests of other workers [300 ms]. */
  pollMs?: number;
  /** Requests older than this are not looked at any more [30 s]. */
  maxAgeMs?: number;
  /**
   * How long after a request a run's `run-start` may come and still count as under way at the
   * request: the run was starting then (its batch taken, its lookups and history append under way,
   * which `run-start` follows) [1 s].
   */
  startingMs?: number;
  /** This worker's clock [Date.now]. */
  now?: () => number;
}

/** A run of this worker, and when (this worker's clock) its `run-start` came. */
export interface RunUnderWay {
  contextId: string;
  startedAt: number;
}

/**
 * The runs a request reaches: those of its target that were under way when it was made, i.e. that
 * started before `madeAt` (this worker's clock) or at most `startingMs` after it. A later run of
 * its context is never reached (a cancel is not sticky).
 */
export function runsReachedBy(
  request: Pick<CancelRequest, "target">,
  madeAt: number,
  runs: ReadonlyMap<string, RunUnderWay>,
  startingMs: number,
): string[] {
  const { target } = request;
  return [...runs.entries()]
    .filter(([requestId, run]) =>
      target.requestId !== undefined ? requestId === target.requestId : run.contextId === target.contextId,
    )
    .filter(([, run]) => run.startedAt <= madeAt + startingMs)
    .map(([requestId]) => requestId);
}

/**
 * The running side of cluster cancel: while this worker runs anything it looks every `pollMs` for
 * other workers' requests matching its runs, cancels the runs each one reaches (see `runsReachedBy`)
 * and answers with them. A request is placed on this worker's clock by its age on the store's
 * clock (`madeAt = now - ageMs`, read after the query: at most one round trip late, never early).
 */
export function answerCancelRequests(options: CancelRequestAnswersOptions): { close(): void } {
  const { cancels, runtime, workerId, logger } = options;
  const maxAgeMs = options.maxAgeMs ?? 30_000;
  const startingMs = options.startingMs ?? 1000;
  const now = options.now ?? Date.now;
  const running = new Map<string, RunUnderWay>();
  const off = runtime.on((event) => {
    if (event.type === "run-start")
      running.set(event.requestId, { contextId: event.contextId, startedAt: now() });
    else if (event.type === "run-end" || event.type === "run-error") running.delete(event.requestId);
  });
  let looking = false;
  const look = async () => {
    if (looking || running.size === 0) return;
    looking = true;
    try {
      const requests = await cancels.pending(
        {
          contextIds: [...new Set([...running.values()].map((run) => run.contextId))],
          requestIds: [...running.keys()],
        },
        { worker: workerId, maxAgeMs },
      );
      const readAt = now();
      for (const request of requests) {
        // Only a later run of its context is here: not this worker's to answer (its requester closes it).
        const reached = runsReachedBy(request, readAt - request.ageMs, running, startingMs);
        if (reached.length === 0) continue;
        const stopped = (await Promise.all(reached.map((requestId) => runtime.cancel({ requestId })))).flat();
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
  const timer = setInterval(() => void look(), options.pollMs ?? 300);
  timer.unref();
  return {
    close() {
      clearInterval(timer);
      off();
    },
  };
}
