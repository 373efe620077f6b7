import { until } from "@downcity/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { type ClaimPump, createClaimPump, type Settled } from "./claim-pump.js";

let pump: ClaimPump | undefined;
const open = new Map<string, (settled: Settled) => void>();
afterEach(async () => {
  // Items a test left in hand settle, so close does not wait for them.
  for (const settle of open.values()) settle("none");
  open.clear();
  await pump?.close();
  pump = undefined;
});

/** A queue in memory: claims counted, items held until `finish` settles them with what it says. */
function queueOf(items: string[], concurrency = 8) {
  const waiting = [...items];
  const claims: Array<string | undefined> = [];
  const handled: string[] = [];
  pump = createClaimPump({
    concurrency,
    // Long: no poll between a test's steps.
    pollMs: 60_000,
    claim: async () => {
      const item = waiting.shift();
      claims.push(item);
      return item;
    },
    handle: (item) =>
      new Promise<Settled>((resolve) => {
        handled.push(item);
        open.set(item, resolve);
      }),
    onError: (error) => {
      throw error;
    },
  });
  const finish = (item: string, settled: Settled) => {
    open.get(item)?.(settled);
    open.delete(item);
  };
  return { waiting, claims, handled, finish, pump };
}

const empty = (claims: Array<string | undefined>) => claims.filter((claim) => claim === undefined).length;

describe("the claim pump", () => {
  it("claims until nothing is left when woken without a count (a poll, a store wake-up)", async () => {
    const queue = queueOf(["a", "b"]);
    queue.pump.start();
    await until(() => queue.claims.length === 3, "two claims and the one that finds nothing");
    expect(queue.handled).toEqual(["a", "b"]);
    expect(empty(queue.claims)).toBe(1);
  });

  it("claims once per recorded item when woken with a count, and not again after an item with no next", async () => {
    const queue = queueOf([]);
    queue.pump.start();
    await until(() => queue.claims.length === 1, "the start's claim");
    queue.waiting.push("a");
    queue.pump.wake(1);
    await until(() => queue.handled.length === 1, "the recorded item");
    queue.finish("a", "none");
    queue.waiting.push("b");
    queue.pump.wake(1);
    await until(() => queue.handled.length === 2, "the next recorded item");
    queue.finish("b", "none");
    // No claim found nothing after the start's.
    expect(queue.claims).toEqual([undefined, "a", "b"]);
  });

  it("claims once more when a settled item's group has a next one", async () => {
    const queue = queueOf([]);
    queue.pump.start();
    await until(() => queue.claims.length === 1, "the start's claim");
    queue.waiting.push("a1");
    queue.pump.wake(1);
    await until(() => queue.handled.length === 1, "the first of the group");
    queue.waiting.push("a2");
    queue.finish("a1", "next");
    await until(() => queue.handled.length === 2, "the group's next");
    expect(queue.claims).toEqual([undefined, "a1", "a2"]);
  });

  it("serves wake-ups that came while it was full once an item settles, whatever it says", async () => {
    const queue = queueOf([], 1);
    queue.pump.start();
    await until(() => queue.claims.length === 1, "the start's claim");
    queue.waiting.push("a", "b");
    queue.pump.wake(2);
    await until(() => queue.handled.length === 1, "the first item");
    queue.finish("a", "none");
    await until(() => queue.handled.length === 2, "the item that waited for a free slot");
    queue.finish("b", "none");
    expect(queue.claims).toEqual([undefined, "a", "b"]);
  });

  it("claims until nothing is left after an item whose outcome is unknown (a failed send)", async () => {
    const queue = queueOf([]);
    queue.pump.start();
    await until(() => queue.claims.length === 1, "the start's claim");
    queue.waiting.push("a");
    queue.pump.wake(1);
    await until(() => queue.handled.length === 1, "the item");
    queue.waiting.push("b");
    queue.finish("a", "unknown");
    await until(() => queue.claims.length === 4, "a claim for b and one that finds nothing");
    expect(queue.claims).toEqual([undefined, "a", "b", undefined]);
  });

  it("claims again for a wake-up that came while a claim was finding nothing (no wait for the poll)", async () => {
    const waiting: string[] = [];
    const handled: string[] = [];
    let releaseLook: () => void = () => {};
    let looks = 0;
    pump = createClaimPump({
      concurrency: 8,
      pollMs: 60_000,
      claim: async () => {
        // The claim looks first, then its answer travels back: an item accepted meanwhile is not in it.
        const item = waiting.shift();
        looks += 1;
        if (looks === 2) await new Promise<void>((resolve) => (releaseLook = resolve));
        return item;
      },
      handle: async (item) => {
        handled.push(item);
        return "none";
      },
      onError: (error) => {
        throw error;
      },
    });
    pump.start();
    await until(() => looks === 1, "the start's claim");
    pump.wake();
    await until(() => looks === 2, "a claim under way");
    waiting.push("late");
    pump.wake();
    releaseLook();
    await until(() => handled.includes("late"), "the item accepted during the empty claim");
  });
});
