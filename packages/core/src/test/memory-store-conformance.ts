import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { MemoryScope, MemoryStore } from "../store/memory-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const memoryOf = (store: DowncityStore): MemoryStore => {
  if (!store.memory) throw new Error("the store under test has no memory store (DowncityStore.memory)");
  return store.memory;
};

const chat: MemoryScope = { kind: "context", contextId: "telegram:1" };
const profile: MemoryScope = { kind: "profile" };
const line = (text: string) => `- [fact] ${text} <!-- memory {"id":"m-1","sources":["msg-1"]} -->\n`;

/**
 * The memory store contract: what one worker writes (Primary.md with each entry's provenance, the
 * context's meta) the next read on any worker sees; changes of one scope run one at a time across
 * workers; scopes are separate; backups and contexts are kept.
 */
export function testMemoryStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "memory store", (t) => {
    it("shows what one worker wrote to the next read on another, scope by scope", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 2);
      t.store = workers[0] as DowncityStore;
      try {
        const [a, b] = workers.map(memoryOf);
        expect(await b?.read(chat)).toEqual({ primary: "" });
        await a?.update(chat, async (writer) => {
          await writer.writePrimary(`# Memory\n\n${line("Alice likes tea")}`);
          await writer.writeMeta('{"version":1}');
          expect(await writer.read()).toEqual({
            primary: `# Memory\n\n${line("Alice likes tea")}`,
            meta: '{"version":1}',
          });
        });
        expect(await b?.read(chat)).toEqual({
          primary: `# Memory\n\n${line("Alice likes tea")}`,
          meta: '{"version":1}',
        });
        expect(await b?.read({ kind: "context", contextId: "telegram:2" })).toEqual({ primary: "" });
        expect(await b?.read(profile)).toEqual({ primary: "" });
        await b?.update(profile, (writer) =>
          writer.writePrimary(`# Profile\n\n${line("The team is in Berlin")}`),
        );
        expect((await a?.read(profile))?.primary).toContain("The team is in Berlin");
        expect(await a?.contexts()).toEqual(["telegram:1"]);
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("runs the changes of one scope one at a time, across workers", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      try {
        // Each change reads the count and writes it back one higher after a pause: overlapping
        // changes would lose increments.
        const bump = (memory: MemoryStore) =>
          memory.update(chat, async (writer) => {
            const count = Number((await writer.read()).primary || "0");
            await new Promise((resolve) => setTimeout(resolve, 5));
            await writer.writePrimary(String(count + 1));
          });
        await Promise.all(workers.flatMap((store) => [1, 2, 3].map(() => bump(memoryOf(store)))));
        expect((await memoryOf(t.store).read(chat)).primary).toBe("9");
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("keeps documents and backups across a restart; a change's result is returned", async () => {
      const memory = memoryOf(t.store);
      const backup = await memory.update(chat, async (writer) => {
        await writer.writePrimary("before");
        const where = await writer.backup("before", new Date("2026-11-01T10:00:00.000Z"));
        await writer.writePrimary("after");
        return where;
      });
      expect(backup).toContain("2026-11-01T10-00-00");
      await t.store.close();
      t.store = await t.storage.open();
      expect(await memoryOf(t.store).read(chat)).toEqual({ primary: "after" });
    });
  });
}
