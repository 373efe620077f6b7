/** One owner per context at a time: a lease lapses after its time unless renewed. */
export interface ContextLease {
  /** Takes (or renews) the lease of `contextId` for `owner`; false while another owner's lease is live. */
  acquire(contextId: string, owner: string, leaseMs?: number): Promise<boolean>;
  /** Extends `owner`'s live lease; false when it lapsed or another owner holds it now. */
  renew(contextId: string, owner: string, leaseMs?: number): Promise<boolean>;
  /** Gives the lease back (no-op unless `owner` holds it). */
  release(contextId: string, owner: string): Promise<void>;
  /** The owner of the live lease, if any. */
  holder(contextId: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/** Default lease time: a dead worker's contexts move after this long. */
export const defaultLeaseMs = 15_000;

/**
 * The lease that pins a context to the worker holding its live shell sessions: while another
 * worker holds it, a shared inbox does not hand that worker's context's events to anyone else.
 */
export function affinityLeaseKey(contextId: string): string {
  return `affinity:${contextId}`;
}
