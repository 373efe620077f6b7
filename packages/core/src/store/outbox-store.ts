import type { OutboxEntry } from "../channel/outbox-store.js";

/** Options of `SharedOutboxStore.claim`. */
export interface OutboxClaimOptions {
  owner: string;
  /** How long the claim holds without renewal [15000 ms]. */
  leaseMs?: number;
}

/**
 * The outbox as several workers share it: record, claim, mark sent, dead letters. Only the oldest
 * unsent chunk of a chat is claimable, so chunks of one chat go out in order whoever sends them.
 */
export interface SharedOutboxStore {
  /** Records a chunk durably; `known` when its key was recorded or sent before (a replay). */
  record(entry: Omit<OutboxEntry, "status" | "attempts" | "createdAt">): Promise<"recorded" | "known">;
  /** Claims the oldest unsent chunk of a chat with no live claim; undefined when none is free. */
  claim(options: OutboxClaimOptions): Promise<OutboxEntry | undefined>;
  markSent(key: string, messageId?: string): Promise<void>;
  wasSent(key: string): Promise<boolean>;
  /**
   * Counts a failed send; dead after `maxAttempts` or when `permanent`. Otherwise the chunk is
   * claimable again after `retryInMs` [0], by any worker (backoff and retry-after survive a crash).
   */
  fail(
    key: string,
    error: string,
    maxAttempts: number,
    permanent?: boolean,
    retryInMs?: number,
  ): Promise<OutboxEntry>;
  deadLetters(): Promise<OutboxEntry[]>;
  /** Unsent chunks (or dead letters with `dead`), oldest first. */
  list(options?: { dead?: boolean }): Promise<OutboxEntry[]>;
  /** Forgets an unsent or dead chunk; its key stays known, so a replay does not record it again. */
  drop(key: string): Promise<void>;
  retry(key: string): Promise<OutboxEntry>;
  close(): Promise<void>;
}
