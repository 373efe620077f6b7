/** Pulls work from a shared store: claims while fewer than `concurrency` items are in hand. */
export interface ClaimPump {
  /** Starts claiming, and polls every `pollMs` (a lapsed claim of a dead worker is found this way). */
  start(): void;
  /**
   * Claims now: until nothing is claimable (a store notification, a poll, an adapter that came up),
   * or at most `count` times when the caller knows that `count` entries became claimable (chunks it
   * just recorded): a claim past them would find nothing.
   */
  wake(count?: number): void;
  /** Stops claiming; resolves once no claim is under way and every item in hand was handled, or after `waitMs`. */
  close(waitMs?: number): Promise<void>;
}

/**
 * What settling an item made claimable: `next` when its group has a next entry (one more claim),
 * `none` when nothing (no claim), `unknown` (or nothing said) to claim until nothing is claimable.
 */
export type Settled = "next" | "none" | "unknown";

/** Options of `createClaimPump`. */
export interface ClaimPumpOptions<T> {
  concurrency: number;
  pollMs: number;
  claim(): Promise<T | undefined>;
  handle(item: T): Promise<Settled | undefined>;
  onError(error: unknown): void;
}

/** Resolves when `settled` does, or after `waitMs`. */
async function settleWithin(settled: Promise<void>, waitMs: number): Promise<void> {
  if (waitMs === Number.POSITIVE_INFINITY) return settled;
  let timeout: NodeJS.Timeout | undefined;
  await Promise.race([
    settled,
    new Promise<void>((resolve) => {
      timeout = setTimeout(resolve, waitMs);
    }),
  ]);
  clearTimeout(timeout);
}

/**
 * Claims owed: until one finds nothing (`drain`), or `budget` more. Kept while the pump is full, so
 * the wake-ups that came meanwhile are served when an item settles.
 */
function owedClaims() {
  let drain = false;
  let budget = 0;
  // Counts wake-ups, so a claim that found nothing answers only those that came before it began.
  let wakes = 0;
  return {
    any: () => drain || budget > 0,
    /** `count` more claims; until nothing is claimable when undefined. */
    add(count?: number) {
      if (count === 0) return;
      wakes += 1;
      if (count === undefined) drain = true;
      else budget += count;
    },
    /** Takes one owed claim; returns a mark for `answered`. */
    took() {
      if (!drain) budget -= 1;
      return wakes;
    },
    /**
     * Nothing was claimable when the claim marked `since` began (or the claim failed): the
     * wake-ups owed until then are answered. One that came during the claim (an entry accepted
     * after the claim's look) still owes a claim.
     */
    answered(since?: number) {
      if (since !== undefined && wakes !== since) return;
      drain = false;
      budget = 0;
    },
  };
}

const claimsAfter: Record<Settled, number | undefined> = { next: 1, none: 0, unknown: undefined };

/** Creates a claim pump; `handle` owns an item from its claim until it settles. */
export function createClaimPump<T>(options: ClaimPumpOptions<T>): ClaimPump {
  const handling = new Set<Promise<void>>();
  let pumping: Promise<void> | undefined;
  const owed = owedClaims();
  let started = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const room = () => !closed && handling.size < options.concurrency;

  const settled = (work: Promise<void>, result: Settled | undefined) => {
    handling.delete(work);
    owed.add(claimsAfter[result ?? "unknown"]);
    if (owed.any()) wake(0);
  };

  const pump = async () => {
    while (room() && owed.any()) {
      const since = owed.took();
      const item = await options.claim();
      if (item === undefined) {
        owed.answered(since);
        continue;
      }
      const work: Promise<void> = options.handle(item).then(
        (result) => settled(work, result),
        (error: unknown) => {
          options.onError(error);
          settled(work, "unknown");
        },
      );
      handling.add(work);
    }
  };

  const wake = (count?: number) => {
    if (closed || !started) return;
    owed.add(count);
    if (pumping || !room()) return;
    pumping = pump()
      .catch((error: unknown) => {
        // The claim failed: the next wake-up or poll tries again.
        owed.answered();
        options.onError(error);
      })
      .finally(() => {
        pumping = undefined;
        // Wake-ups that came after the loop's last check.
        if (owed.any() && room()) wake(0);
      });
  };

  return {
    start() {
      if (started || closed) return;
      started = true;
      timer = setInterval(() => wake(), options.pollMs);
      timer.unref();
      wake();
    },
    wake,
    async close(waitMs = Number.POSITIVE_INFINITY) {
      closed = true;
      if (timer) clearInterval(timer);
      const settledAll = (async () => {
        await pumping;
        while (handling.size > 0) await Promise.allSettled([...handling]);
      })();
      return settleWithin(settledAll, waitMs);
    },
  };
}
