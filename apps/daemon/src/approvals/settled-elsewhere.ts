import {
  type ApprovalDecision,
  type ApprovalStore,
  type ClusterEventBus,
  errorFields,
  type Logger,
} from "@downcity/core";

/** The cluster event a worker publishes once it settled a request (any worker's run may wait for it). */
export const approvalSettledEvent = "approval-settled";

/**
 * Finds the decisions other workers made on the requests this worker's runs wait for: at once on
 * their `approval-settled` event (the store's cluster wake-ups), and every `everyMs` as the safety
 * net for a missed event. `waiting` lists the codes waited for here; `settled` hands over each
 * decision found (the caller drops the code from `waiting`). Returns the stop function.
 */
export function watchSettledElsewhere(options: {
  store: ApprovalStore;
  events?: ClusterEventBus;
  workerId: string;
  everyMs: number;
  logger: Logger;
  waiting(): readonly string[];
  settled(decision: ApprovalDecision): void;
}): () => void {
  const { store, logger } = options;
  // One look at a time, in order: an event arriving during a look is looked at right after it.
  let checking: Promise<void> = Promise.resolve();
  const check = (codes: readonly string[]) => {
    if (codes.length === 0) return;
    checking = checking.then(async () => {
      try {
        for (const code of codes) {
          if (!options.waiting().includes(code)) continue;
          const decision = await store.decision(code);
          // A code settled long ago and asked again is pending again: only a settled one counts.
          if (decision && !(await store.get(code))) options.settled(decision);
        }
      } catch (error) {
        logger.warn(errorFields(error), "could not look for approval decisions");
      }
    });
  };
  const unsubscribe = options.events?.subscribe(options.workerId, (event) => {
    if (event.type !== approvalSettledEvent || typeof event.code !== "string") return;
    if (options.waiting().includes(event.code)) check([event.code]);
  });
  const timer = setInterval(() => check(options.waiting()), options.everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    unsubscribe?.();
  };
}
