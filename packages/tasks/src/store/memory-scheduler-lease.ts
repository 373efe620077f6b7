import type { TaskSchedulerLease } from "@downcity/core";

/** The scheduler lease in this process's memory: right for the file store, which one worker serves. */
export function createMemorySchedulerLease(now: () => number = Date.now): TaskSchedulerLease {
  let lease: { owner: string; until: number } | undefined;
  const live = () => {
    if (lease && lease.until <= now()) lease = undefined;
    return lease;
  };
  return {
    async acquire(owner, leaseMs) {
      const held = live();
      if (held && held.owner !== owner) return false;
      lease = { owner, until: now() + leaseMs };
      return true;
    },
    async release(owner) {
      if (live()?.owner === owner) lease = undefined;
    },
    holder: async () => live()?.owner,
  };
}
