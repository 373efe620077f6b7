import { errorFields, type Logger, type TaskSchedulerLease } from "@downcity/core";

/** Keeps (or waits for) the scheduler lease, and says when this worker starts or stops leading. */
export interface SchedulerLeaseKeeper {
  readonly leading: boolean;
  /** Tries once at once (so a lone worker leads as soon as this resolves), then every third of the lease. */
  start(): Promise<void>;
  /** Stops trying and gives the lease back when held. */
  stop(): Promise<void>;
}

/**
 * Creates the keeper of the scheduler lease: the holder renews it every `leaseMs / 3`; the others
 * try as often, so one of them leads within a lease after the holder died. A holder that cannot
 * reach the store stops leading before its lease can lapse, so two workers never both think they lead.
 */
export function createSchedulerLeaseKeeper(options: {
  lease: TaskSchedulerLease;
  worker: string;
  leaseMs: number;
  logger: Logger;
  onChange: (leading: boolean) => void;
  now?: () => number;
}): SchedulerLeaseKeeper {
  const { lease, worker, leaseMs, logger } = options;
  const now = options.now ?? Date.now;
  let leading = false;
  let renewedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let inFlight = false;
  let tick: Promise<void> = Promise.resolve();

  const change = (next: boolean) => {
    if (next === leading) return;
    leading = next;
    logger.info(
      { worker, leading },
      leading ? "took the task scheduler lease" : "lost the task scheduler lease",
    );
    options.onChange(next);
  };

  /** A holder that has not renewed for two thirds of its lease stops firing before it can lapse. */
  const checkStale = () => {
    if (leading && now() - renewedAt >= (leaseMs * 2) / 3) change(false);
  };

  const attempt = async () => {
    const startedAt = now();
    try {
      const held = await lease.acquire(worker, leaseMs);
      if (held) renewedAt = startedAt;
      if (running) change(held);
    } catch (error) {
      logger.warn(
        { worker, ...errorFields(error) },
        "cannot reach the store to keep the task scheduler lease",
      );
      checkStale();
    } finally {
      inFlight = false;
    }
  };

  // A tick every third of the lease; an attempt stuck on a dead connection does not stop the check.
  const onTick = () => {
    checkStale();
    if (inFlight) return;
    inFlight = true;
    tick = attempt();
  };

  return {
    get leading() {
      return leading;
    },
    async start() {
      if (running) return;
      running = true;
      inFlight = true;
      tick = attempt();
      await tick;
      timer = setInterval(onTick, leaseMs / 3);
      timer.unref?.();
    },
    async stop() {
      running = false;
      if (timer) clearInterval(timer);
      timer = undefined;
      await tick.catch(() => undefined);
      const wasLeading = leading;
      change(false);
      if (wasLeading) await lease.release(worker).catch(() => undefined);
    },
  };
}
