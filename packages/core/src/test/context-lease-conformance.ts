import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import {
  closeAll,
  describeStoreSuite,
  openWorkers,
  pollFor,
  type StoreSuiteOptions,
} from "./store-suite-options.js";

/** The context lease contract: one owner at a time, renewal, expiry, release. */
export function testContextLease(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "context lease", (t) => {
    it("gives a context to one owner; the holder renews, others are refused", async () => {
      expect(await t.store.leases.acquire("web:a", "w1", 5000)).toBe(true);
      expect(await t.store.leases.acquire("web:a", "w2", 5000)).toBe(false);
      expect(await t.store.leases.acquire("web:b", "w2", 5000)).toBe(true);
      expect(await t.store.leases.acquire("web:a", "w1", 5000)).toBe(true);
      expect(await t.store.leases.renew("web:a", "w1", 5000)).toBe(true);
      expect(await t.store.leases.renew("web:a", "w2", 5000)).toBe(false);
      expect(await t.store.leases.holder("web:a")).toBe("w1");
      expect(await t.store.leases.holder("web:c")).toBeUndefined();
    });

    it("lets a lapsed lease go to another owner, and the old owner cannot renew it", async () => {
      expect(await t.store.leases.acquire("web:a", "w1", 300)).toBe(true);
      const started = Date.now();
      await pollFor(
        async () => ((await t.store.leases.acquire("web:a", "w2", 5000)) ? true : undefined),
        3000,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(await t.store.leases.renew("web:a", "w1", 5000)).toBe(false);
      expect(await t.store.leases.holder("web:a")).toBe("w2");
    });

    it("keeps a lease renewed past its time, and frees it on release", async () => {
      expect(await t.store.leases.acquire("web:a", "w1", 300)).toBe(true);
      for (let round = 0; round < 4; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await t.store.leases.renew("web:a", "w1", 300)).toBe(true);
        expect(await t.store.leases.acquire("web:a", "w2", 300)).toBe(false);
      }
      await t.store.leases.release("web:a", "w2");
      expect(await t.store.leases.holder("web:a")).toBe("w1");
      await t.store.leases.release("web:a", "w1");
      expect(await t.store.leases.acquire("web:a", "w2", 300)).toBe(true);
    });

    it("gives a contested context to exactly one of many concurrent claimers", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      for (let round = 0; round < 10; round++) {
        const results = await Promise.all(
          Array.from({ length: 9 }, (_, index) =>
            (workers[index % workers.length] as DowncityStore).leases.acquire(
              `web:r${round}`,
              `w${index}`,
              5000,
            ),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      }
      await closeAll(workers.filter((worker) => worker !== t.store));
    });
  });
}
