import type { InboxEntry } from "../channel/inbox-store.js";

/** Options of `SharedInboxStore.claim`. */
export interface InboxClaimOptions {
  /** Who claims: a worker id; its claims lapse after `leaseMs` unless renewed. */
  owner: string;
  /** How long the claim holds without renewal [15000 ms]. */
  leaseMs?: number;
}

/**
 * The inbox as several workers share it: accept with dedupe, claim the next event of a free
 * context, complete, fail, dead letters. A context has at most one claimed event at a time and
 * only its oldest unfinished event is ever claimable, so per-context order holds across workers.
 */
export interface SharedInboxStore {
  /** Records an event durably (`accepted`), or reports it was seen within the dedupe window (`duplicate`). */
  accept(
    entry: Omit<InboxEntry, "id" | "status" | "attempts" | "acceptedAt">,
  ): Promise<{ result: "accepted" | "duplicate"; id: string }>;
  /** Claims the oldest event of a context with no live claim; undefined when none is free. */
  claim(options: InboxClaimOptions): Promise<InboxEntry | undefined>;
  /** Extends `owner`'s claim on `id`; false when the claim was lost (expired and taken over, or finished). */
  renew(id: string, options: InboxClaimOptions): Promise<boolean>;
  /** Gives a claim back without counting a failure (a worker shutting down). */
  release(id: string, owner: string): Promise<void>;
  /** Finishes an event: its id stays known for dedupe. */
  complete(id: string): Promise<void>;
  /** Counts a failed run and releases the claim; dead after `maxAttempts` failures. */
  fail(id: string, error: string, maxAttempts: number): Promise<InboxEntry>;
  get(id: string): Promise<InboxEntry | undefined>;
  /** Dead letters, oldest first. */
  deadLetters(): Promise<InboxEntry[]>;
  /** Unfinished entries (or dead letters with `dead`), oldest first. */
  list(options?: { dead?: boolean }): Promise<InboxEntry[]>;
  /** Forgets a pending or dead entry; its id stays known for dedupe. */
  drop(id: string): Promise<void>;
  /** Moves a dead letter back to pending with a fresh attempt count. */
  retry(id: string): Promise<InboxEntry>;
  close(): Promise<void>;
}
