import { type ContextLease, defaultLeaseMs } from "../context-lease.js";

/** Leases held in this process's memory: right for the file store, which one worker serves. */
export function createMemoryLease(options: { now?: () => number } = {}): ContextLease {
  const now = options.now ?? Date.now;
  const leases = new Map<string, { owner: string; until: number }>();
  const live = (contextId: string) => {
    const lease = leases.get(contextId);
    if (lease && lease.until > now()) return lease;
    leases.delete(contextId);
    return undefined;
  };
  return {
    async acquire(contextId, owner, leaseMs = defaultLeaseMs) {
      const lease = live(contextId);
      if (lease && lease.owner !== owner) return false;
      leases.set(contextId, { owner, until: now() + leaseMs });
      return true;
    },
    async renew(contextId, owner, leaseMs = defaultLeaseMs) {
      const lease = live(contextId);
      if (lease?.owner !== owner) return false;
      lease.until = now() + leaseMs;
      return true;
    },
    async release(contextId, owner) {
      if (live(contextId)?.owner === owner) leases.delete(contextId);
    },
    holder: async (contextId) => live(contextId)?.owner,
    close: async () => leases.clear(),
  };
}
