import { setTimeout as sleep } from "node:timers/promises";
import { errorFields, type Logger } from "../logger/logger.js";
import { isContextWindowError } from "./context-window-error.js";
import { ModelCallFailure, readModelFailure } from "./model-failure.js";

/** How long transient model failures are retried: the one retry policy of a run's model calls. */
export interface ModelRetryPolicy {
  /** Give up once the next retry would start later than this after the first failure [10 min]. */
  maxMs: number;
  /** First delay, doubled per retry [1 s]. */
  baseDelayMs: number;
  /** Longest delay between two tries, unless the provider asks for longer [60 s]. */
  maxDelayMs: number;
}

/** The policy of a run whose config sets none (`run.retry.maxMs` in downcity.json). */
export const defaultModelRetry: Readonly<ModelRetryPolicy> = Object.freeze({
  maxMs: 10 * 60_000,
  baseDelayMs: 1000,
  maxDelayMs: 60_000,
});

/** Options of `retryModelCalls`. */
export interface RetryModelCallsOptions {
  policy: ModelRetryPolicy;
  /** The run's signal: a stopped run is never retried, and a stop ends the wait. */
  signal: AbortSignal;
  logger: Logger;
  /** Called before each retry (the failed try's steps do not count). */
  onRetry: () => void;
  /** Brackets each wait, so the watchdog does not take it for a silent stream. */
  waiting?: { start(): void; end(): void };
  now?: () => number;
}

/**
 * Runs `attempt`, retrying transient model failures (429, 5xx, timeouts, connection errors) with
 * exponential backoff, at least the provider's retry-after, until `policy.maxMs` after the first
 * failure; then throws a ModelCallFailure. Permanent failures, context-window overflows (compaction
 * handles those) and errors that are not model failures are thrown as they are, at once.
 */
export async function retryModelCalls<Result>(
  attempt: () => Promise<Result>,
  options: RetryModelCallsOptions,
): Promise<Result> {
  const { policy, signal, logger } = options;
  const now = options.now ?? Date.now;
  let firstFailure: number | undefined;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const reading = readModelFailure(error);
      if (signal.aborted || !reading || reading.kind === "permanent" || isContextWindowError(error))
        throw error;
      firstFailure ??= now();
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (tries - 1));
      const delayMs = Math.max(backoff, reading.retryAfterMs ?? 0);
      if (now() + delayMs - firstFailure > policy.maxMs) throw new ModelCallFailure(error, reading, tries);
      logger.warn(
        { tries, delayMs, ...errorFields(error) },
        `model call failed (${reading.reason}); retrying`,
      );
      options.waiting?.start();
      try {
        await sleep(delayMs, undefined, { signal });
      } finally {
        options.waiting?.end();
      }
      options.onRetry();
    }
  }
}
