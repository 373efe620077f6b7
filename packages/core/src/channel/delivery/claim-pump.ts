/** Pulls work from a shared store: claims while fewer than `concurrency` items are in hand. */
export interface ClaimPump {
  /** Starts claiming, and polls every `pollMs` (a lapsed claim of a dead worker is found this way). */
  start(): void;
  /** Claims now (after an accept, a store notification, or a finished item). */
  wake(): void;
  /** Stops claiming; resolves once no claim is under way and every item in hand was handled, or after `waitMs`. */
  close(waitMs?: number): Promise<void>;
}

/** Creates a claim pump; `handle` owns an item from its claim until it settles. */
export function createClaimPump<T>(options: {
  concurrency: number;
  pollMs: number;
  claim(): Promise<T | undefined>;
  handle(item: T): Promise<void>;
  onError(error: unknown): void;
}): ClaimPump {
  const handling = new Set<Promise<void>>();
  let pumping: Promise<void> | undefined;
  let again = false;
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const pump = async () => {
    do {
      again = false;
      while (!closed && handling.size < options.concurrency) {
        const item = await options.claim();
        if (item === undefined) break;
        const work: Promise<void> = options
          .handle(item)
          .catch(options.onError)
          .finally(() => {
            handling.delete(work);
            wake();
          });
        handling.add(work);
      }
    } while (again && !closed && handling.size < options.concurrency);
  };

  const wake = () => {
    if (closed || !started) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump()
      .catch(options.onError)
      .finally(() => {
        pumping = undefined;
      });
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      timer = setInterval(wake, options.pollMs);
      timer.unref();
      wake();
    },
    wake,
    async close(waitMs = Number.POSITIVE_INFINITY) {
      closed = true;
      if (timer) clearInterval(timer);
      const settled = (async () => {
        await pumping;
        while (handling.size > 0) await Promise.allSettled([...handling]);
      })();
      if (waitMs === Number.POSITIVE_INFINITY) return settled;
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([
        settled,
        new Promise<void>((resolve) => {
          timeout = setTimeout(resolve, waitMs);
        }),
      ]);
      clearTimeout(timeout);
    },
  };
}
