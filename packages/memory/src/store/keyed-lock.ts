import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { acquireFileLock, type Logger } from "@downcity/core";

/** Runs critical sections one at a time per lock file: in order inside this process, and across processes. */
export interface KeyedLock {
  run<T>(lockPath: string, fn: () => Promise<T>): Promise<T>;
}

/** Creates a keyed lock (an in-process queue per path in front of core's cross-process file lock). */
export function createKeyedLock(options: { logger: Logger; timeoutMs?: number }): KeyedLock {
  const tails = new Map<string, Promise<unknown>>();
  return {
    run(lockPath, fn) {
      const locked = async () => {
        await mkdir(dirname(lockPath), { recursive: true });
        const release = await acquireFileLock(lockPath, {
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          onStaleLock: (holder) =>
            options.logger.warn({ lockPath, holderPid: holder?.pid }, "broke stale memory lock"),
        });
        try {
          return await fn();
        } finally {
          await release();
        }
      };
      const previous = tails.get(lockPath) ?? Promise.resolve();
      const result = previous.then(locked, locked);
      const tail = result.catch(() => undefined);
      tails.set(lockPath, tail);
      void tail.then(() => {
        if (tails.get(lockPath) === tail) tails.delete(lockPath);
      });
      return result;
    },
  };
}
