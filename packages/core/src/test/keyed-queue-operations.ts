import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { KeyedQueue, QueuedEntry } from "../store/keyed-queue.js";
import type { StoreFixture } from "./store-suite-options.js";

/** How a conformance suite reaches one keyed queue of the store (the inbox or the outbox). */
export interface QueueUnderTest<Entry extends QueuedEntry> {
  queue(store: DowncityStore): KeyedQueue<Entry>;
  /** Queues entry `name` in `group` (a context, a chat): "new", or "known" when its key was seen. */
  add(store: DowncityStore, name: string, group: string): Promise<"new" | "known">;
  /** The queue key of entry `name`. */
  key(name: string): string;
  keyOf(entry: Entry): string;
}

/**
 * The operator's view every keyed queue offers (what `downcity inbox|outbox list|retry|drop` use):
 * unfinished entries and dead letters listed oldest first, a dropped entry gone for good, and its
 * key still known, so a redelivery or a replayed run does not queue it again.
 */
export function itListsAndDrops<Entry extends QueuedEntry>(
  t: StoreFixture,
  under: QueueUnderTest<Entry>,
  title: string,
): void {
  it(title, async () => {
    const queue = () => under.queue(t.store);
    const keys = async (options?: { dead?: boolean }) => (await queue().list(options)).map(under.keyOf);
    const [k1, k2, k3] = ["e1", "e2", "e3"].map(under.key);
    await under.add(t.store, "e1", "a");
    await under.add(t.store, "e2", "b");
    await under.add(t.store, "e3", "a");
    expect(await keys()).toEqual([k1, k2, k3]);
    await queue().claim({ owner: "w1" });
    await queue().fail(k1 as string, "boom", 1);
    expect(await keys({ dead: true })).toEqual([k1]);
    expect(await keys()).toEqual([k2, k3]);
    await queue().drop(k1 as string);
    await queue().drop(k3 as string);
    expect(await queue().list({ dead: true })).toEqual([]);
    expect(await keys()).toEqual([k2]);
    // Dropped keys stay known: a redelivery or a replayed run is not queued again.
    expect(await under.add(t.store, "e3", "a")).toBe("known");
    const claimed = await queue().claim({ owner: "w1" });
    expect(claimed && under.keyOf(claimed)).toBe(k2);
    expect(await queue().claim({ owner: "w1" })).toBeUndefined();
  });
}

/** Queues a1, b1, a2, a3, b2 (groups a and b, interleaved) and returns the keys in that order. */
export async function addInterleaved<Entry extends QueuedEntry>(
  store: DowncityStore,
  under: QueueUnderTest<Entry>,
): Promise<string[]> {
  const names = ["a1", "b1", "a2", "a3", "b2"];
  for (const name of names) await under.add(store, name, name.slice(0, 1));
  return names.map(under.key);
}

/**
 * Under `group-at-a-time`: each group's oldest entry first, one claim per group at a time, groups
 * in parallel; the next entry of a group once the claimed one completes. Returns the first claim.
 */
export async function expectOneClaimPerGroup<Entry extends QueuedEntry>(
  store: DowncityStore,
  under: QueueUnderTest<Entry>,
): Promise<Entry | undefined> {
  const [a1, b1, a2] = await addInterleaved(store, under);
  const queue = under.queue(store);
  const first = await queue.claim({ owner: "w1" });
  const second = await queue.claim({ owner: "w2" });
  expect([first, second].map((entry) => entry && under.keyOf(entry))).toEqual([a1, b1]);
  expect(await queue.claim({ owner: "w3" })).toBeUndefined();
  await queue.complete(a1 as string);
  const next = await queue.claim({ owner: "w3" });
  expect(next && under.keyOf(next)).toBe(a2);
  return first;
}
