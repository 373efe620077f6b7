/**
 * How a queue hands out its entries. Entries of one group (a context's events, a chat's chunks)
 * always go out oldest first; the policy says whether a group may have several in hand at once.
 * - `group-at-a-time`: only a group's oldest unfinished entry is claimable, by one claimer; the
 *   policy of stores several workers share (order holds whoever claims).
 * - `join-running`: every unfinished entry is claimable in order, so a context's events reach the
 *   runtime while its run goes on and join it at the next step; right for a store one worker serves.
 */
export type ClaimPolicy = "group-at-a-time" | "join-running";

/** Options of `KeyedQueue.claim` and `renew`. */
export interface ClaimOptions {
  /** Who claims: a worker id; its claims lapse after `leaseMs` unless renewed. */
  owner: string;
  /** How long the claim holds without renewal [15000 ms]. */
  leaseMs?: number;
}

/** The bookkeeping every queued entry carries. */
export interface QueuedEntry {
  status: "pending" | "done" | "dead";
  attempts: number;
  lastError?: string;
  /** The worker that claimed it last (kept after the claim ends), where the store records it. */
  worker?: string;
}

/** What finishing an entry left behind in its group. */
export interface Completed {
  /**
   * Another unfinished entry of the group waits (claimable now, under `group-at-a-time`): worth a
   * claim. False tells a claimer that finishing this entry made nothing new claimable.
   */
  next: boolean;
}

/**
 * A durable queue of keyed entries with claims and dead letters: the shape the inbox and the outbox
 * share. A key is recorded once; after it finished or was dropped it stays known, so a redelivery
 * or a replayed run does not queue it again.
 */
export interface KeyedQueue<Entry extends QueuedEntry> {
  readonly claimPolicy: ClaimPolicy;
  /** Claims the oldest claimable entry (see `claimPolicy`); undefined when none is free. */
  claim(options: ClaimOptions): Promise<Entry | undefined>;
  /** Extends `owner`'s claim on `key`; false when the claim was lost (lapsed and taken over, or finished). */
  renew(key: string, options: ClaimOptions): Promise<boolean>;
  /** Gives a claim back without counting a failure (a worker shutting down). */
  release(key: string, owner: string): Promise<void>;
  /**
   * Finishes an entry (`receipt`: what the far side called it, e.g. the platform's message id) and
   * tells whether its group has a next entry, so a claimer claims again only when one waits.
   */
  complete(key: string, receipt?: string): Promise<Completed>;
  /**
   * Counts a failure and releases the claim; dead after `maxAttempts` failures or when `permanent`.
   * Otherwise the entry is claimable again after `retryInMs` [0], by any claimer, so a backoff
   * survives a crash.
   */
  fail(
    key: string,
    error: string,
    maxAttempts: number,
    permanent?: boolean,
    retryInMs?: number,
  ): Promise<Entry>;
  /** An unfinished or dead entry. */
  get(key: string): Promise<Entry | undefined>;
  /** Unfinished entries (or dead letters with `dead`), oldest first. */
  list(options?: { dead?: boolean }): Promise<Entry[]>;
  /** Moves a dead letter back to pending with a fresh attempt count (CONFLICT while it is pending). */
  retry(key: string): Promise<Entry>;
  /** Forgets a pending or dead entry; its key stays known. */
  drop(key: string): Promise<void>;
  close(): Promise<void>;
}
