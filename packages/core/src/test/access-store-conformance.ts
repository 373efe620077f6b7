import { expect, it } from "vitest";
import type { AccessStore } from "../store/access-store.js";
import type { DowncityStore } from "../store/downcity-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const accessOf = (store: DowncityStore): AccessStore => {
  if (!store.access) throw new Error("the store under test has no access store (DowncityStore.access)");
  return store.access;
};

const held = { eventId: "e1", messageId: "m1", text: "hello?", username: "stranger" };

/**
 * The access store contract: pairing codes (one per sender, at most 3 waiting, approved or denied
 * exactly once, from any worker), approvals, groups let in and refused groups, kept across restarts.
 */
export function testAccessStore(options: StoreSuiteOptions): void {
  testUsersAndGroups(options);
  describeStoreSuite(options, "access store (codes)", (t) => {
    it("offers one code per sender and at most three at once, each keeping the message that asked", async () => {
      const access = accessOf(t.store).channel("telegram");
      const first = await access.offer({ userId: "u1", chatId: "c1", username: "one" }, held);
      expect(first?.code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
      expect(Date.parse(first?.expiresAt ?? "") - Date.parse(first?.createdAt ?? "")).toBe(3600_000);
      expect(await access.offer({ userId: "u1", chatId: "c1" })).toBeUndefined();
      expect(await access.offer({ userId: "u2", chatId: "c2" })).toBeDefined();
      expect(await access.offer({ userId: "u3", chatId: "c3" })).toBeDefined();
      expect(await access.offer({ userId: "u4", chatId: "c4" })).toBeUndefined();
      const { pending, approved } = await access.read();
      expect(pending.map((entry) => entry.userId)).toEqual(["u1", "u2", "u3"]);
      expect(pending[0]).toEqual(first);
      expect(pending[0]?.held).toEqual(held);
      expect(approved).toEqual([]);
      // Channels are separate.
      expect((await accessOf(t.store).channel("qq").read()).pending).toEqual([]);
    });

    it("approves a code issued on another worker exactly once, whatever its case and spaces", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b, c] = workers.map((store) => accessOf(store).channel("telegram"));
        const offered = await a?.offer({ userId: "u1", chatId: "c1", username: "one" }, held);
        const code = offered?.code ?? "";
        const tries = await Promise.all(
          [b, c, b].map((access) => access?.approve(`  ${code.toLowerCase()} `)),
        );
        const winners = tries.filter((result) => result !== undefined);
        expect(winners).toHaveLength(1);
        expect(winners[0]).toMatchObject({ userId: "u1", username: "one", via: "pairing" });
        expect(winners[0]?.request).toEqual(offered);
        for (const access of [a, b, c]) {
          const state = await access?.read();
          expect(state?.approved.map((user) => user.userId)).toEqual(["u1"]);
          expect(state?.pending).toEqual([]);
        }
        expect(await a?.approve(code)).toBeUndefined();
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("denies a code without letting its sender in", async () => {
      const access = accessOf(t.store).channel("telegram");
      const offered = await access.offer({ userId: "u1", chatId: "c1" });
      expect(await access.deny("NOPE1234")).toBeUndefined();
      expect((await access.deny(offered?.code ?? ""))?.userId).toBe("u1");
      expect(await access.approve(offered?.code ?? "")).toBeUndefined();
      expect(await access.read()).toMatchObject({ approved: [], pending: [] });
    });

    it("keeps codes, approvals and groups across a restart", async () => {
      const access = accessOf(t.store).channel("telegram");
      const offered = await access.offer({ userId: "u1", chatId: "c1" }, held);
      await access.allow({ userId: "u2" });
      await access.allowGroup({ chatId: "g1", title: "Team" });
      await t.store.close();
      t.store = await t.storage.open();
      const reopened = accessOf(t.store).channel("telegram");
      const state = await reopened.read();
      expect(state.pending).toEqual([offered]);
      expect(state.approved.map((user) => user.userId)).toEqual(["u2"]);
      expect(state.groups).toMatchObject([{ chatId: "g1", title: "Team" }]);
      expect((await reopened.approve(offered?.code ?? ""))?.request.held).toEqual(held);
    });
  });
}

/** Approved users, groups let in and refused groups. */
function testUsersAndGroups(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "access store (users and groups)", (t) => {
    it("allows and revokes users; a revoke of someone never approved says so", async () => {
      const access = accessOf(t.store).channel("telegram");
      expect(await access.allow({ userId: "u1", username: "one" })).toMatchObject({
        userId: "u1",
        via: "cli",
      });
      await access.allow({ userId: "u2" });
      await access.allow({ userId: "u1", username: "uno" });
      const approved = (await access.read()).approved;
      expect(approved.map((user) => [user.userId, user.username])).toEqual(
        expect.arrayContaining([
          ["u1", "uno"],
          ["u2", undefined],
        ]),
      );
      expect(approved).toHaveLength(2);
      expect(await access.revoke("u1")).toBe(true);
      expect(await access.revoke("u1")).toBe(false);
      expect((await access.read()).approved.map((user) => user.userId)).toEqual(["u2"]);
    });

    it("counts refused groups, and allowing one keeps its title and clears its refusal", async () => {
      const access = accessOf(t.store).channel("telegram");
      await access.noteDeniedGroup({ chatId: "g1", title: "Team" });
      await access.noteDeniedGroup({ chatId: "g1" });
      await access.noteDeniedGroup({ chatId: "g2" });
      const denied = (await access.read()).deniedGroups;
      expect(denied.find((group) => group.chatId === "g1")).toMatchObject({ title: "Team", count: 2 });
      expect(await access.allowGroup({ chatId: "g1" })).toMatchObject({ chatId: "g1", title: "Team" });
      const state = await access.read();
      expect(state.groups.map((group) => group.chatId)).toEqual(["g1"]);
      expect(state.deniedGroups.map((group) => group.chatId)).toEqual(["g2"]);
      expect(await access.revokeGroup("g1")).toBe(true);
      expect(await access.revokeGroup("g1")).toBe(false);
      expect((await access.read()).groups).toEqual([]);
    });

    it("keeps only the 50 most recently refused groups", async () => {
      const access = accessOf(t.store).channel("telegram");
      for (let index = 0; index < 52; index++) await access.noteDeniedGroup({ chatId: `g${index}` });
      const kept = (await access.read()).deniedGroups.map((group) => group.chatId);
      expect(kept).toHaveLength(50);
      expect(kept).not.toContain("g0");
      expect(kept).toContain("g51");
    });
  });
}
