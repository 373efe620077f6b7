import { expect, it } from "vitest";
import type { AdapterStateStore } from "../store/adapter-state-store.js";
import type { DowncityStore } from "../store/downcity-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const stateOf = (store: DowncityStore): AdapterStateStore => {
  if (!store.adapterState)
    throw new Error("the store under test has no adapter state store (DowncityStore.adapterState)");
  return store.adapterState;
};

/**
 * The adapter state contract: a value set by one worker's poller is what the next poller, on any
 * worker, reads; keys and channels are separate; values survive a restart; bad keys are refused.
 */
export function testAdapterStateStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "adapter state store", (t) => {
    it("hands the value one worker set to another, per channel and key", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map((store) => stateOf(store).channel("telegram"));
        expect(await b?.get("offset")).toBeUndefined();
        await a?.set("offset", { botId: 7, offset: 101, savedAt: "2026-11-01T10:00:00.000Z" });
        expect(await b?.get("offset")).toEqual({
          botId: 7,
          offset: 101,
          savedAt: "2026-11-01T10:00:00.000Z",
        });
        await b?.set("offset", { botId: 7, offset: 102, savedAt: "2026-11-01T10:00:01.000Z" });
        expect(await a?.get("offset")).toMatchObject({ offset: 102 });
        expect(await a?.get("session")).toBeUndefined();
        expect(
          await stateOf(workers[1] as DowncityStore)
            .channel("qq")
            .get("offset"),
        ).toBeUndefined();
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("keeps any JSON value, null included, across a restart", async () => {
      const state = stateOf(t.store).channel("qq");
      await state.set("qq-session", { sessionId: "s-1", seq: 42 });
      await state.set("cleared", null);
      await state.set("count", 3);
      await t.store.close();
      t.store = await t.storage.open();
      const reopened = stateOf(t.store).channel("qq");
      expect(await reopened.get("qq-session")).toEqual({ sessionId: "s-1", seq: 42 });
      expect(await reopened.get("cleared")).toBeNull();
      expect(await reopened.get("count")).toBe(3);
    });

    it("refuses keys that are not lower-case letters, digits and dashes", async () => {
      const state = stateOf(t.store).channel("telegram");
      await expect(state.set("../escape", 1)).rejects.toMatchObject({ code: "INVALID_INPUT" });
      await expect(state.get("Offset")).rejects.toMatchObject({ code: "INVALID_INPUT" });
    });
  });
}
