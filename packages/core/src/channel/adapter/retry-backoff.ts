// Shared by the polling and reconnecting channel adapters (Telegram getUpdates, WeChat getupdates).
/** Delays of an exponential backoff (doubling up to a ceiling), reset by the first success. */
export interface RetryBackoff {
  /** Waits the next delay (or `overrideMs`, e.g. a 429's retry-after); resolves early when `signal` aborts. */
  wait(signal: AbortSignal, overrideMs?: number): Promise<void>;
  reset(): void;
}

/** Backoff timing: first delay and ceiling, in milliseconds. */
export interface RetryBackoffOptions {
  initialMs: number;
  maxMs: number;
}

/** Creates an exponential backoff whose waits end (without throwing) as soon as the signal aborts. */
export function createRetryBackoff(options: RetryBackoffOptions): RetryBackoff {
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
