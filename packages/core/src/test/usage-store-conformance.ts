import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { UsageRecord, UsageStore } from "../store/usage-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const usageOf = (store: DowncityStore): UsageStore => {
  if (!store.usage) throw new Error("the store under test has no usage store (DowncityStore.usage)");
  return store.usage;
};

const call = (at: string, overrides: Partial<UsageRecord> = {}): UsageRecord => ({
  at,
  contextId: "telegram:1",
  requestId: "r1",
  step: 0,
  provider: "openai",
  model: "gpt",
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 2,
  totalTokens: 15,
  durationMs: 100,
  finishReason: "stop",
  ...overrides,
});

/**
 * The usage store contract: every worker's calls are read back from any worker, whole (worker id,
 * purpose, estimate kept), in the order they were made, filtered by time, context and run.
 */
export function testUsageStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "usage store", (t) => {
    it("reads every worker's calls back from any worker, whole and in order", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map(usageOf);
        const first = call("2026-11-01T10:00:00.000Z", { workerId: "worker-a" });
        const second = call("2026-11-01T10:00:01.000Z", {
          workerId: "worker-b",
          purpose: "memory",
          estimated: true,
          requestId: "r2",
        });
        await a?.append(first);
        await b?.append(second);
        expect(await a?.read()).toEqual([first, second]);
        expect(await b?.read()).toEqual([first, second]);
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("filters by time, context and run, across days", async () => {
      const usage = usageOf(t.store);
      const records = [
        call("2026-10-31T23:59:00.000Z"),
        call("2026-11-01T08:00:00.000Z", { contextId: "qq:2", requestId: "r2" }),
        call("2026-11-02T09:00:00.000Z", { requestId: "r3" }),
      ];
      for (const record of records) await usage.append(record);
      expect(await usage.read({ since: new Date("2026-11-01T00:00:00.000Z") })).toEqual(records.slice(1));
      expect(await usage.read({ contextId: "qq:2" })).toEqual([records[1]]);
      expect(await usage.read({ requestId: "r3" })).toEqual([records[2]]);
      expect(
        await usage.read({ contextId: "telegram:1", since: new Date("2026-11-01T00:00:00.000Z") }),
      ).toEqual([records[2]]);
      await t.store.close();
      t.store = await t.storage.open();
      expect(await usageOf(t.store).read()).toEqual(records);
    });
  });
}
