import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { InboxEntry } from "../store/inbox-store.js";
import {
  addInterleaved,
  expectOneClaimPerGroup,
  itListsAndDrops,
  type QueueUnderTest,
} from "./keyed-queue-operations.js";
import {
  closeAll,
  describeStoreSuite,
  drainQueue,
  openWorkers,
  pollFor,
  type StoreSuiteOptions,
} from "./store-suite-options.js";

const event = (contextId: string, eventId: string, text = `text of ${eventId}`) => ({
  channel: "web",
  eventId,
  contextId,
  message: { text, chatId: contextId, chatType: "direct" as const, userId: "u1" },
});

const inboxUnderTest: QueueUnderTest<InboxEntry> = {
  queue: (store) => store.inbox,
  add: async (store, name, group) =>
    (await store.inbox.accept(event(`web:${group}`, name))).result === "accepted" ? "new" : "known",
  key: (name) => `web:${name}`,
  keyOf: (entry) => entry.id,
};

/** The shared inbox contract every store must keep: ordering, dedupe, claims, crashes, dead letters. */
export function testInboxStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "inbox store", (t) => {
    it("accepts once per event id and reports redeliveries as duplicates, also after completion", async () => {
      const first = await t.store.inbox.accept(event("web:a", "e1"));
      expect(first).toEqual({ result: "accepted", id: "web:e1" });
      expect(await t.store.inbox.accept(event("web:a", "e1"))).toEqual({ result: "duplicate", id: "web:e1" });
      const claimed = await t.store.inbox.claim({ owner: "w1" });
      expect(claimed?.id).toBe("web:e1");
      await t.store.inbox.complete("web:e1");
      expect((await t.store.inbox.accept(event("web:a", "e1"))).result).toBe("duplicate");
      expect(await t.store.inbox.claim({ owner: "w1" })).toBeUndefined();
    });

    it("hands out a context's events oldest first; one claim per context under group-at-a-time", async () => {
      if (t.store.inbox.claimPolicy === "group-at-a-time") {
        const first = await expectOneClaimPerGroup(t.store, inboxUnderTest);
        expect(first?.message).toEqual(event("web:a", "a1").message);
        return;
      }
      await addInterleaved(t.store, inboxUnderTest);
      const first = await t.store.inbox.claim({ owner: "w1" });
      const second = await t.store.inbox.claim({ owner: "w2" });
      expect(first?.message).toEqual(event("web:a", "a1").message);
      // One worker: a context's later events go to it while the first runs, to join that run.
      expect([first?.eventId, second?.eventId]).toEqual(["a1", "b1"]);
      const rest = [await t.store.inbox.claim({ owner: "w1" }), await t.store.inbox.claim({ owner: "w1" })];
      expect(rest.map((entry) => entry?.eventId)).toEqual(["a2", "a3"]);
      expect((await t.store.inbox.claim({ owner: "w1" }))?.eventId).toBe("b2");
      expect(await t.store.inbox.claim({ owner: "w3" })).toBeUndefined();
    });

    it("gives a released claim to the next claimer at once, and keeps a renewed claim", async () => {
      await t.store.inbox.accept(event("web:a", "e1"));
      const claimed = await t.store.inbox.claim({ owner: "w1", leaseMs: 300 });
      expect(claimed?.id).toBe("web:e1");
      for (let round = 0; round < 4; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await t.store.inbox.renew("web:e1", { owner: "w1", leaseMs: 300 })).toBe(true);
        expect(await t.store.inbox.claim({ owner: "w2" })).toBeUndefined();
      }
      expect(await t.store.inbox.renew("web:e1", { owner: "w2", leaseMs: 300 })).toBe(false);
      await t.store.inbox.release("web:e1", "w1");
      expect((await t.store.inbox.claim({ owner: "w2" }))?.id).toBe("web:e1");
    });

    it("replays an event whose worker died between claim and complete, after its lease", async () => {
      await t.store.inbox.accept(event("web:a", "e1"));
      await t.store.inbox.accept(event("web:a", "e2"));
      const claimed = await t.store.inbox.claim({ owner: "dead-worker", leaseMs: 400 });
      expect(claimed?.id).toBe("web:e1");
      await t.store.close();
      const started = Date.now();
      t.store = await t.storage.open();
      const replayed = await pollFor(() => t.store.inbox.claim({ owner: "w2" }), 3000);
      expect(replayed.id).toBe("web:e1");
      expect(Date.now() - started).toBeLessThan(400 + 2000);
      expect(await t.store.inbox.renew("web:e1", { owner: "dead-worker" })).toBe(false);
      await t.store.inbox.complete("web:e1");
      expect((await t.store.inbox.claim({ owner: "w2" }))?.id).toBe("web:e2");
    });

    it("counts failures, dead-letters after the limit, and retries a dead letter", async () => {
      await t.store.inbox.accept(event("web:a", "e1"));
      await t.store.inbox.accept(event("web:a", "e2"));
      await t.store.inbox.claim({ owner: "w1" });
      const once = await t.store.inbox.fail("web:e1", "boom 1", 2);
      expect(once).toMatchObject({ status: "pending", attempts: 1, lastError: "boom 1" });
      expect((await t.store.inbox.claim({ owner: "w1" }))?.id).toBe("web:e1");
      const dead = await t.store.inbox.fail("web:e1", "boom 2", 2);
      expect(dead).toMatchObject({ status: "dead", attempts: 2, lastError: "boom 2" });
      expect((await t.store.inbox.list({ dead: true })).map((entry) => entry.id)).toEqual(["web:e1"]);
      // A dead letter no longer holds its context back.
      expect((await t.store.inbox.claim({ owner: "w1" }))?.id).toBe("web:e2");
      await t.store.inbox.complete("web:e2");
      expect(await t.store.inbox.retry("web:e1")).toMatchObject({ status: "pending", attempts: 0 });
      expect(await t.store.inbox.list({ dead: true })).toEqual([]);
      expect((await t.store.inbox.claim({ owner: "w1" }))?.id).toBe("web:e1");
    });

    itListsAndDrops(t, inboxUnderTest, "lists unfinished entries and dead letters, and drops one for good");

    it("keeps a large payload intact", async () => {
      const text = "x€\n".repeat(350_000);
      await t.store.inbox.accept(event("web:a", "big", text));
      const claimed = await t.store.inbox.claim({ owner: "w1" });
      expect(claimed?.message.text).toBe(text);
      expect((await t.store.inbox.get("web:big"))?.message.text.length).toBe(text.length);
    });

    it("serves concurrent claimers each event exactly once, in order per context", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 4);
      t.store = workers[0] as DowncityStore;
      const contexts = 12;
      const perContext = 6;
      await Promise.all(
        Array.from({ length: contexts }, async (_, context) => {
          for (let index = 0; index < perContext; index++)
            await workers[index % workers.length]?.inbox.accept(
              event(`web:c${context}`, `c${context}-${index}`),
            );
        }),
      );
      const handled: string[] = [];
      const inFlight = new Set<string>();
      let overlap = false;
      await Promise.all(
        workers.flatMap((worker, number) =>
          [0, 1].map((lane) =>
            drainQueue(
              worker.inbox,
              `w${number}.${lane}`,
              (entry) => entry.id,
              async (entry) => {
                if (inFlight.has(entry.contextId)) overlap = true;
                inFlight.add(entry.contextId);
                handled.push(entry.eventId);
                await new Promise((resolve) => setTimeout(resolve, 2));
                inFlight.delete(entry.contextId);
              },
            ),
          ),
        ),
      );
      await closeAll(workers.filter((worker) => worker !== t.store));
      // Under join-running a context's events are in hand together, still handed out in order.
      if (t.store.inbox.claimPolicy === "group-at-a-time") expect(overlap).toBe(false);
      expect(handled).toHaveLength(contexts * perContext);
      expect(new Set(handled).size).toBe(contexts * perContext);
      for (let context = 0; context < contexts; context++) {
        const order = handled.filter((id) => id.startsWith(`c${context}-`));
        expect(order).toEqual(Array.from({ length: perContext }, (_, index) => `c${context}-${index}`));
      }
    });
  });
}
