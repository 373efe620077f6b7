import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { OutboxEntry } from "../store/outbox-store.js";
import { expectOneClaimPerGroup, itListsAndDrops, type QueueUnderTest } from "./keyed-queue-operations.js";
import { itKeepsAttachmentsAndActions } from "./outbox-payload-conformance.js";
import {
  closeAll,
  describeStoreSuite,
  drainQueue,
  openWorkers,
  pollFor,
  type StoreSuiteOptions,
} from "./store-suite-options.js";

const chunk = (key: string, chatId: string, text = `text of ${key}`) => ({
  key,
  channel: "web",
  contextId: `web:${chatId}`,
  target: { chatId, chatType: "direct" as const },
  text,
});

const outboxUnderTest: QueueUnderTest<OutboxEntry> = {
  queue: (store) => store.outbox,
  add: async (store, name, group) =>
    (await store.outbox.record(chunk(name, group))) === "recorded" ? "new" : "known",
  key: (name) => name,
  keyOf: (entry) => entry.key,
};

/** The shared outbox contract every store must keep: record once, claim in order per chat, dead letters. */
export function testOutboxStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "outbox store", (t) => {
    it("records a key once, also after it was sent (a replayed run)", async () => {
      expect(await t.store.outbox.record(chunk("r1#0", "a"))).toBe("recorded");
      expect(await t.store.outbox.record(chunk("r1#0", "a"))).toBe("known");
      expect((await t.store.outbox.claim({ owner: "w1" }))?.key).toBe("r1#0");
      expect(await t.store.outbox.wasSent("r1#0")).toBe(false);
      await t.store.outbox.complete("r1#0", "m-1");
      expect(await t.store.outbox.wasSent("r1#0")).toBe(true);
      expect(await t.store.outbox.record(chunk("r1#0", "a"))).toBe("known");
      expect(await t.store.outbox.claim({ owner: "w1" })).toBeUndefined();
    });

    it("tells on completing a chunk whether its chat has a next one (so a sender claims again only then)", async () => {
      await t.store.outbox.record(chunk("c1", "a"));
      await t.store.outbox.record(chunk("c2", "a"));
      await t.store.outbox.record(chunk("d1", "b"));
      expect((await t.store.outbox.claim({ owner: "w1" }))?.key).toBe("c1");
      expect((await t.store.outbox.claim({ owner: "w1" }))?.key).toBe("d1");
      // Another chat's pending chunk is no next of this one.
      expect(await t.store.outbox.complete("d1", "m-d1")).toEqual({ next: false });
      expect(await t.store.outbox.complete("c1", "m-c1")).toEqual({ next: true });
      expect((await t.store.outbox.claim({ owner: "w1" }))?.key).toBe("c2");
      expect(await t.store.outbox.complete("c2", "m-c2")).toEqual({ next: false });
      // Completed twice (a retried bookkeeping call): nothing waits behind it either.
      expect(await t.store.outbox.complete("c2", "m-c2")).toEqual({ next: false });
      expect(await t.store.outbox.claim({ owner: "w1" })).toBeUndefined();
    });

    it("hands out a chat's chunks in order, one at a time, chats in parallel", async () => {
      const first = await expectOneClaimPerGroup(t.store, outboxUnderTest);
      expect(first?.target).toEqual({ chatId: "a", chatType: "direct" });
    });

    it("sends again a chunk whose sender died before marking it sent, after its lease", async () => {
      await t.store.outbox.record(chunk("k1", "a"));
      expect((await t.store.outbox.claim({ owner: "dead-worker", leaseMs: 400 }))?.key).toBe("k1");
      await t.store.close();
      t.store = await t.storage.open();
      const again = await pollFor(() => t.store.outbox.claim({ owner: "w2" }), 3000);
      expect(again.key).toBe("k1");
    });

    it("counts failures, dead-letters on the limit or a permanent error, and retries", async () => {
      await t.store.outbox.record(chunk("k1", "a"));
      await t.store.outbox.record(chunk("k2", "b"));
      await t.store.outbox.claim({ owner: "w1" });
      expect(await t.store.outbox.fail("k1", "429", 3)).toMatchObject({ status: "pending", attempts: 1 });
      expect((await t.store.outbox.claim({ owner: "w1" }))?.key).toBe("k1");
      expect(await t.store.outbox.fail("k1", "403", 3, true)).toMatchObject({
        status: "dead",
        lastError: "403",
      });
      expect((await t.store.outbox.list({ dead: true })).map((entry) => entry.key)).toEqual(["k1"]);
      expect(await t.store.outbox.retry("k1")).toMatchObject({ status: "pending", attempts: 0 });
      const keys = [
        (await t.store.outbox.claim({ owner: "w1" }))?.key,
        (await t.store.outbox.claim({ owner: "w1" }))?.key,
      ];
      expect(keys.sort()).toEqual(["k1", "k2"]);
    });

    it("holds a failed chunk back until its retry is due, then any worker may send it", async () => {
      await t.store.outbox.record(chunk("k1", "a"));
      await t.store.outbox.claim({ owner: "w1" });
      expect(await t.store.outbox.fail("k1", "429", 5, false, 600)).toMatchObject({
        status: "pending",
        attempts: 1,
      });
      expect(await t.store.outbox.claim({ owner: "w2" })).toBeUndefined();
      const started = Date.now();
      const again = await pollFor(() => t.store.outbox.claim({ owner: "w2" }), 3000);
      expect(again.key).toBe("k1");
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    });

    itListsAndDrops(
      t,
      outboxUnderTest,
      "lists unsent chunks and dead letters, and a dropped key stays known",
    );

    itKeepsAttachmentsAndActions(t);

    it("keeps a large chunk intact", async () => {
      const text = "ü".repeat(1_000_000);
      await t.store.outbox.record(chunk("big", "a", text));
      expect((await t.store.outbox.claim({ owner: "w1" }))?.text).toBe(text);
    });

    it("sends each chunk once across concurrent senders, in order per chat", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      for (let index = 0; index < 8; index++)
        for (let chat = 0; chat < 6; chat++)
          await t.store.outbox.record(chunk(`c${chat}-${index}`, `c${chat}`));
      const sent: string[] = [];
      await Promise.all(
        workers.map((worker, number) =>
          drainQueue(
            worker.outbox,
            `w${number}`,
            (entry) => entry.key,
            (entry) => {
              sent.push(entry.key);
            },
          ),
        ),
      );
      await closeAll(workers.filter((worker) => worker !== t.store));
      expect(new Set(sent).size).toBe(48);
      expect(sent).toHaveLength(48);
      for (let chat = 0; chat < 6; chat++)
        expect(sent.filter((key) => key.startsWith(`c${chat}-`))).toEqual(
          Array.from({ length: 8 }, (_, index) => `c${chat}-${index}`),
        );
    });
  });
}
