import { acquireFileLock, type FileLockOptions, type FileLockRelease } from "../../fs/file-lock.js";

/** Options of `createHistoryLock`. */
export interface HistoryLockOptions extends FileLockOptions {
  /** How long the lock is kept after its last use, for the next one [100 ms]. */
  holdMs?: number;
  /** The longest it is kept while uses follow each other, so other processes get their turn [1 s]. */
  maxHoldMs?: number;
}

/**
 * The history's cross-process lock file, kept for `holdMs` after a use: a turn's appends (its
 * trigger message, then its answer) and a busy context's next turn take it once instead of creating
 * and removing `messages.lock` each time (a new file can cost the filesystem
 * milliseconds: a journal commit to wait for, or a search past recently freed inodes). Before each use a `stat` checks the
 * lock file is still the one this holder created (`FileLockRelease.isHeld`); a lock someone broke or
 * replaced is taken anew. Uses run one at a time, in order.
 */
export interface HistoryLock {
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Releases a kept lock now. */
  release(): Promise<void>;
}

/** The lock at `lockPath`; `prepare` runs before the first take (the history folder is created there). */
export function createHistoryLock(
  lockPath: string,
  prepare: () => Promise<void>,
  options: HistoryLockOptions = {},
): HistoryLock {
  const holdMs = options.holdMs ?? 100;
  const maxHoldMs = options.maxHoldMs ?? 1000;
  // Serialises this store's own lock users so they don't poll each other through the lock file.
  let queue: Promise<unknown> = Promise.resolve();
  let held: { release: FileLockRelease; since: number } | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  let uses = 0;

  const releaseHeld = async () => {
    const current = held;
    held = undefined;
    if (current) await current.release();
  };

  const take = async () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    if (held?.release.isHeld()) return;
    // Lost (broken as stale or replaced by hand): not ours to remove.
    held = undefined;
    await prepare();
    held = { release: await acquireFileLock(lockPath, options), since: Date.now() };
  };

  // After a use: kept for the next one, unless held long enough that other processes should get a turn.
  const keep = async () => {
    if (!held) return;
    if (Date.now() - held.since > maxHoldMs) return releaseHeld();
    const use = uses;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      enqueue(async () => {
        if (uses === use) await releaseHeld();
      }).catch(() => {});
    }, holdMs);
  };

  const enqueue = <T>(fn: () => Promise<T>): Promise<T> => {
    const result = queue.then(fn, fn);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    run(fn) {
      return enqueue(async () => {
        uses++;
        await take();
        try {
          return await fn();
        } finally {
          await keep();
        }
      });
    },
    release: () =>
      enqueue(async () => {
        if (idleTimer) clearTimeout(idleTimer);
        idleTimer = undefined;
        await releaseHeld();
      }),
  };
}
