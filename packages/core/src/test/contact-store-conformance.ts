import { expect, it } from "vitest";
import type { ContactStore, SeenContact } from "../store/contact-store.js";
import type { DowncityStore } from "../store/downcity-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const contactsOf = (store: DowncityStore): ContactStore => {
  if (!store.contacts) throw new Error("the store under test has no contact store (DowncityStore.contacts)");
  return store.contacts;
};

const alice: SeenContact = {
  channel: "telegram",
  chatId: "100",
  chatType: "direct",
  contextId: "telegram:100",
  userId: "u-alice",
  username: "Alice",
  displayName: "Alice A.",
  lastSeen: "2026-11-01T10:00:00.000Z",
};

/**
 * The contact store contract: a sender seen on one worker is found by id and by username (any
 * case) on every other; a direct chat stays the address over a group; names are kept when a later
 * sighting lacks them; contacts survive a restart.
 */
export function testContactStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "contact store", (t) => {
    it("finds a contact seen on another worker by id and by username, in any case", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map(contactsOf);
        expect(await b?.get("telegram:u-alice")).toBeUndefined();
        await a?.seen(alice);
        expect(await b?.get("telegram:u-alice")).toEqual({ ...alice, id: "telegram:u-alice" });
        expect((await b?.byUsername("alice"))?.map((contact) => contact.id)).toEqual(["telegram:u-alice"]);
        expect(await b?.byUsername("bob")).toEqual([]);
        await b?.seen({ ...alice, channel: "qq", contextId: "qq:100", lastSeen: "2026-11-01T10:01:00.000Z" });
        expect((await a?.byUsername("ALICE"))?.map((contact) => contact.id).sort()).toEqual([
          "qq:u-alice",
          "telegram:u-alice",
        ]);
        expect((await a?.list())?.map((contact) => contact.id)).toEqual(["telegram:u-alice", "qq:u-alice"]);
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("keeps a direct chat as the address over a group, and names a later sighting lacks", async () => {
      const contacts = contactsOf(t.store);
      await contacts.seen(alice);
      const { username: _username, displayName: _displayName, ...nameless } = alice;
      await contacts.seen({
        ...nameless,
        chatId: "-500",
        chatType: "group",
        contextId: "telegram:-500",
        lastSeen: "2026-11-01T11:00:00.000Z",
      });
      expect(await contacts.get("telegram:u-alice")).toEqual({
        ...alice,
        id: "telegram:u-alice",
        lastSeen: "2026-11-01T11:00:00.000Z",
      });
      // A group member seen first in a group moves to their direct chat once it is known.
      const bob = { ...nameless, userId: "u-bob", chatId: "-500", chatType: "group" as const };
      await contacts.seen({ ...bob, contextId: "telegram:-500" });
      await contacts.seen({
        ...bob,
        chatId: "200",
        chatType: "direct",
        contextId: "telegram:200",
        username: "bob",
      });
      expect(await contacts.get("telegram:u-bob")).toMatchObject({
        chatId: "200",
        chatType: "direct",
        username: "bob",
      });
    });

    it("keeps contacts across a restart", async () => {
      await contactsOf(t.store).seen(alice);
      await t.store.close();
      t.store = await t.storage.open();
      expect(await contactsOf(t.store).list()).toEqual([{ ...alice, id: "telegram:u-alice" }]);
    });
  });
}
