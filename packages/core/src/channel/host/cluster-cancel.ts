import { setTimeout as sleep } from "node:timers/promises";
import { errorFields } from "../../logger/logger.js";
import type { CancelTarget } from "../../run/active-runs.js";
import type { CancelledRun } from "../../store/run-cancel-store.js";
import { answerCancelRequests, type CancelRequestAnswersOptions } from "./cancel-request-answers.js";

// How long a requester still waits for an answer once the holder's claim ended (the run ends, then it answers).
const unheldGraceMs = 3000;

/** Cancels runs wherever they run among the workers of a store; see `createClusterCancel`. */
export interface ClusterCancel {
  /** Stops the matching runs here and on the worker that runs them; resolves with every run stopped. */
  cancel(target: CancelTarget): Promise<CancelledRun[]>;
  close(): void;
}

/** Options of `createClusterCancel`. */
export interface ClusterCancelOptions extends CancelRequestAnswersOptions {
  /** How long a requester waits for the running worker's answer [15 s]. */
  answerWaitMs?: number;
}

/**
 * Cancel across workers: a cancel stops this worker's matching runs, records a request in the store
 * and, when another worker holds the context's claim, waits for its answer; then it closes the
 * request (answers it itself), so a request outlives its requester's wait on no worker. Each worker,
 * while it runs anything, answers the requests that reach its runs (`answerCancelRequests`). Like a
 * local cancel it is not sticky: runs that start after it are not stopped.
 */
export function createClusterCancel(options: ClusterCancelOptions): ClusterCancel {
  const { cancels, runtime, workerId, logger } = options;
  const answers = answerCancelRequests(options);

  /** The holder's answer, or undefined once its claim ended without one (or the wait ran out). */
  const awaitAnswer = async (id: string, holder: string): Promise<CancelledRun[] | undefined> => {
    const deadline = Date.now() + (options.answerWaitMs ?? 15_000);
    let unheldSince: number | undefined;
    while (Date.now() < deadline) {
      const request = await cancels.get(id);
      if (request?.cancelled) return request.cancelled;
      // The holder's claim ended: its answer follows the run's end closely, else it ran nothing matching.
      unheldSince = request?.held ? undefined : (unheldSince ?? Date.now());
      if (unheldSince !== undefined && Date.now() - unheldSince > unheldGraceMs) return undefined;
      await sleep(100);
    }
    logger.warn(
      { request: id, holder },
      "the worker running the context did not answer the cancel request in time",
    );
    return undefined;
  };

  /** Closes the request; returns what a holder's answer that came first stopped. */
  const closeRequest = async (id: string): Promise<CancelledRun[]> => {
    try {
      await cancels.answer(id, workerId, []);
      const request = await cancels.get(id);
      return request?.answeredBy !== workerId ? (request?.cancelled ?? []) : [];
    } catch (error) {
      // Left open it still stops no later run: workers only stop runs under way when it was made.
      logger.warn({ request: id, ...errorFields(error) }, "could not close the cancel request");
      return [];
    }
  };

  return {
    async cancel(target) {
      const here = await runtime.cancel(target);
      const { id, holder } = await cancels.request(target, workerId);
      const answered = holder ? await awaitAnswer(id, holder) : undefined;
      return [...here, ...(answered ?? (await closeRequest(id)))];
    },
    close: answers.close,
  };
}
