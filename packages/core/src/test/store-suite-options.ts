import { afterEach, beforeEach, describe } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { KeyedQueue, QueuedEntry } from "../store/keyed-queue.js";

/** A fresh, empty storage for one test, and how to open handles onto it. */
export interface StoreUnderTest {
  /** Opens a handle onto this storage, as one worker would (the file store: one at a time). */
  open(): Promise<DowncityStore>;
  /** Removes the storage. */
  cleanup(): Promise<void>;
}

/** Options every store conformance suite takes. */
export interface StoreSuiteOptions {
  /** Shown in the test names, e.g. "file store" or "postgres". */
  name: string;
  /** Creates a fresh storage per test. */
  create(): Promise<StoreUnderTest>;
  /** True when several handles may be open at once (several workers); the file store serves one. */
  sharedByWorkers: boolean;
}

/** Polls `probe` until it returns a value, failing after `timeoutMs`. */
export async function pollFor<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Opens `count` handles: separate workers when the store allows it, else one shared handle. */
export async function openWorkers(
  storage: StoreUnderTest,
  options: StoreSuiteOptions,
  count: number,
): Promise<DowncityStore[]> {
  if (!options.sharedByWorkers) {
    const one = await storage.open();
    return Array.from({ length: count }, () => one);
  }
  return Promise.all(Array.from({ length: count }, () => storage.open()));
}

/** Closes each distinct handle once. */
export async function closeAll(stores: DowncityStore[]): Promise<void> {
  for (const store of new Set(stores)) await store.close();
}

/** The storage and the open handle of the running test; a test may reopen `store` (a restart). */
export interface StoreFixture {
  storage: StoreUnderTest;
  store: DowncityStore;
}

/** Describes one conformance suite: each test gets a fresh storage with one open handle, removed after it. */
export function describeStoreSuite(
  options: StoreSuiteOptions,
  contract: string,
  tests: (fixture: StoreFixture) => void,
): void {
  describe(`${options.name}: ${contract} conformance`, () => {
    const fixture = {} as StoreFixture;
    beforeEach(async () => {
      fixture.storage = await options.create();
      fixture.store = await fixture.storage.open();
    });
    afterEach(async () => {
      await fixture.store.close().catch(() => {});
      await fixture.storage.cleanup();
    });
    tests(fixture);
  });
}

/**
 * Claims from `queue` as `owner` until it comes back empty five times in a row (10 ms apart),
 * handing each entry to `handle` and then completing it under `keyOf(entry)`.
 */
export async function drainQueue<Entry extends QueuedEntry>(
  queue: KeyedQueue<Entry>,
  owner: string,
  keyOf: (entry: Entry) => string,
  handle: (entry: Entry) => Promise<void> | void,
): Promise<void> {
  let idle = 0;
  while (idle < 5) {
    const entry = await queue.claim({ owner });
    if (!entry) {
      idle += 1;
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    idle = 0;
    await handle(entry);
    await queue.complete(keyOf(entry));
  }
}
