import { expect, it } from "vitest";
import type { ClusterEvent } from "../store/cluster-events.js";
import {
  closeAll,
  describeStoreSuite,
  openWorkers,
  pollFor,
  type StoreSuiteOptions,
} from "./store-suite-options.js";

/** The cancel-request contract (`store.cancels`): request, holder, pending, first answer wins. */
export function testRunCancelStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "run cancel store", (t) => {
    const cancels = () => {
      if (!t.store.cancels) throw new Error(`${options.name} has no cancels`);
      return t.store.cancels;
    };

    it("lists a request to the workers running its context or run, until the first answer", async () => {
      const byContext = await cancels().request({ contextId: "web:a" }, "w1");
      expect(byContext.holder).toBeUndefined();
      const byRun = await cancels().request({ requestId: "r-9" }, "w1");
      const pending = await cancels().pending(
        { contextIds: ["web:a"], requestIds: ["r-9"] },
        { worker: "w2", maxAgeMs: 60_000 },
      );
      expect(pending.map((request) => request.id).sort()).toEqual([byContext.id, byRun.id].sort());
      expect(pending.find((request) => request.id === byRun.id)?.target).toEqual({ requestId: "r-9" });
      // Not to the requester itself, nor to a worker running something else.
      expect(
        await cancels().pending(
          { contextIds: ["web:a"], requestIds: [] },
          { worker: "w1", maxAgeMs: 60_000 },
        ),
      ).toEqual([]);
      expect(
        await cancels().pending(
          { contextIds: ["web:b"], requestIds: [] },
          { worker: "w2", maxAgeMs: 60_000 },
        ),
      ).toEqual([]);
      await cancels().answer(byContext.id, "w2", [{ contextId: "web:a", requestId: "r-1" }]);
      await cancels().answer(byContext.id, "w3", []);
      expect(await cancels().get(byContext.id)).toMatchObject({
        target: { contextId: "web:a" },
        requestedBy: "w1",
        answeredBy: "w2",
        cancelled: [{ contextId: "web:a", requestId: "r-1" }],
      });
      const left = await cancels().pending(
        { contextIds: ["web:a"], requestIds: ["r-9"] },
        { worker: "w2", maxAgeMs: 60_000 },
      );
      expect(left.map((request) => request.id)).toEqual([byRun.id]);
    });

    it("reports each request's age on the store's clock, growing as time passes", async () => {
      const { id } = await cancels().request({ contextId: "web:a" }, "w1");
      const [listed] = await cancels().pending(
        { contextIds: ["web:a"], requestIds: [] },
        { worker: "w2", maxAgeMs: 60_000 },
      );
      expect(listed?.ageMs).toBeGreaterThanOrEqual(0);
      expect(listed?.ageMs).toBeLessThan(10_000);
      // Workers place a request on their own clock by its age, so the age must track real time.
      const older = await pollFor(async () => {
        const request = await cancels().get(id);
        return request && request.ageMs >= 100 ? request : undefined;
      }, 5000);
      expect(older.ageMs).toBeLessThan(10_000);
    });

    it("drops a request its requester closed: pending to no one, a later answer does not count", async () => {
      const { id } = await cancels().request({ contextId: "web:a" }, "w1");
      await cancels().answer(id, "w1", []);
      expect(
        await cancels().pending(
          { contextIds: ["web:a"], requestIds: [] },
          { worker: "w2", maxAgeMs: 60_000 },
        ),
      ).toEqual([]);
      await cancels().answer(id, "w2", [{ contextId: "web:a", requestId: "r-late" }]);
      expect(await cancels().get(id)).toMatchObject({ answeredBy: "w1", cancelled: [] });
    });

    it("names the worker holding the context's claim, while it holds it", async () => {
      if (!options.sharedByWorkers) return;
      await t.store.inbox.accept({
        channel: "web",
        eventId: "e1",
        contextId: "web:a",
        message: { text: "hi" },
      });
      const claimed = await t.store.inbox.claim({ owner: "w2", leaseMs: 30_000 });
      expect(claimed?.id).toBe("web:e1");
      const { id, holder } = await cancels().request({ contextId: "web:a" }, "w1");
      expect(holder).toBe("w2");
      expect((await cancels().get(id))?.held).toBe(true);
      await t.store.inbox.complete("web:e1");
      expect((await cancels().get(id))?.held).toBe(false);
    });
  });
}

/** The live event bus contract (`store.events`): other workers' events arrive, one's own do not. */
export function testClusterEventBus(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "cluster event bus", (t) => {
    it("hands a worker's events to the other workers, marked with their worker, long texts shortened", async () => {
      if (!options.sharedByWorkers) return;
      const [a, b] = await openWorkers(t.storage, options, 2);
      try {
        const seenByB: Array<{ event: ClusterEvent; from: string }> = [];
        const seenByA: ClusterEvent[] = [];
        b?.events?.subscribe("w-b", (event, from) => seenByB.push({ event, from }));
        a?.events?.subscribe("w-a", (event) => seenByA.push(event));
        const long = "x".repeat(20_000);
        // The listening connection opens with the first subscriber: publish until B hears.
        await pollFor(async () => {
          await a?.events?.publish("w-a", [{ type: "run-start", contextId: "web:a", requestId: "r1" }]);
          return seenByB.length > 0 ? true : undefined;
        }, 10_000);
        await a?.events?.publish("w-a", [
          { type: "run-end", contextId: "web:a", requestId: "r1", text: long },
        ]);
        const end = await pollFor(async () => seenByB.find((seen) => seen.event.type === "run-end"), 10_000);
        expect(end.from).toBe("w-a");
        expect(String(end.event.text).length).toBeLessThan(long.length);
        expect(String(end.event.text).startsWith("xxx")).toBe(true);
        expect(seenByA).toEqual([]);
      } finally {
        await closeAll([a, b].filter((store) => store !== undefined));
      }
    });
  });
}
