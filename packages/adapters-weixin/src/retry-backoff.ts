/** Delays of an exponential backoff (doubling up to a ceiling), reset by the first success. */
export interface RetryBackoff {
  /** Waits the next delay (or `overrideMs`); resolves early when `signal` aborts. */
  wait(signal: AbortSignal, overrideMs?: number): Promise<void>;
  reset(): void;
}

/** Creates an exponential backoff whose waits end (without throwing) as soon as the signal aborts. */
export function createRetryBackoff(options: { initialMs: number; maxMs: number }): RetryBackoff {
  let next = options.initialMs;
  return {
    wait(signal, overrideMs) {
      const delay = overrideMs ?? next;
      if (overrideMs === undefined) next = Math.min(next * 2, options.maxMs);
      if (signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, delay);
        signal.addEventListener("abort", done, { once: true });
      });
    },
    reset() {
      next = options.initialMs;
    },
  };
}
