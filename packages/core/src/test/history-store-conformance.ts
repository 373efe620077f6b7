import { expect, it } from "vitest";
import { createChatTools } from "../chat/chat-tools.js";
import type { HistoryMessage } from "../history/history-message.js";
import { messageText } from "../history/history-message.js";
import { appendUnlessStored, storedUserMessages } from "../run/persisted-messages.js";
import type { DowncityStore } from "../store/downcity-store.js";
import { closeAll, describeStoreSuite, openWorkers, type StoreSuiteOptions } from "./store-suite-options.js";

const message = (id: string, text = `text ${id}`): HistoryMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text }],
  metadata: { createdAt: "2026-11-23T00:00:00.000Z" },
});

/** The shared history contract: ordered appends, tail reads, meta, compaction keeping concurrent appends. */
export function testHistoryStore(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "history store", (t) => {
    it("reads appends back in order, whole or as a tail, per context", async () => {
      const history = t.store.history.context("web:a");
      expect(await history.read()).toEqual([]);
      await history.append(message("m1"));
      await history.append([message("m2"), message("m3")]);
      await t.store.history.context("web:b").append(message("other"));
      expect((await history.read()).map((entry) => entry.id)).toEqual(["m1", "m2", "m3"]);
      expect((await history.read({ last: 2 })).map((entry) => entry.id)).toEqual(["m2", "m3"]);
      expect(await history.read({ last: 0 })).toEqual([]);
      expect((await history.read())[1]).toEqual(message("m2"));
    });

    it("finds a replayed event's stored user message by its messageId, within the look-back only", async () => {
      const history = t.store.history.context("web:a");
      const stamped = (id: string, role: "user" | "assistant", messageId: string): HistoryMessage => ({
        ...message(id),
        role,
        metadata: { createdAt: "2026-11-23T00:00:00.000Z", messageId, requestId: `req-${id}` },
      });
      await history.append([stamped("old", "user", "evt-old"), stamped("u1", "user", "evt-1")]);
      await history.append([stamped("a1", "assistant", "evt-2"), stamped("u2", "user", "evt-2")]);
      await t.store.history.context("web:b").append(stamped("elsewhere", "user", "evt-1"));
      // Through the driver's findUserMessages when it has one, else the runtime's filter of read().
      const found = await storedUserMessages(history, ["evt-2", "evt-1", "evt-none"], 3);
      expect(found.map((entry) => entry.id)).toEqual(["u1", "u2"]);
      expect(found[0]).toEqual(stamped("u1", "user", "evt-1"));
      expect(await storedUserMessages(history, ["evt-old"], 3)).toEqual([]);
      expect(await storedUserMessages(history, ["evt-old"], 4)).toHaveLength(1);
    });

    it("appends a run's trigger unless its event's user message is stored, answering the stored copies", async () => {
      const history = t.store.history.context("web:a");
      const user = (id: string, messageId: string, role: "user" | "assistant" = "user"): HistoryMessage => ({
        ...message(id),
        role,
        metadata: { createdAt: "2026-11-23T00:00:00.000Z", messageId, requestId: "req-1" },
      });
      const ids = async () => (await history.read()).map((entry) => entry.id);
      // Through the driver's appendUnlessStored when it has one, else a look and an append.
      expect(
        await appendUnlessStored(history, [user("u1", "evt-1"), user("u2", "evt-2")], { last: 3 }),
      ).toEqual([]);
      expect(await ids()).toEqual(["u1", "u2"]);
      // A replay of evt-2 (with a new event beside it) writes nothing and finds the stored copy.
      const replay = await appendUnlessStored(history, [user("r2", "evt-2"), user("u3", "evt-3")], {
        last: 3,
      });
      expect(replay).toEqual([user("u2", "evt-2")]);
      expect(await ids()).toEqual(["u1", "u2"]);
      // An assistant message with the event's id, or a user message older than the look-back, is no copy.
      await history.append([user("a1", "evt-4", "assistant"), message("x1"), message("x2")]);
      expect(
        await appendUnlessStored(history, [user("u4", "evt-4"), user("r1", "evt-1")], { last: 3 }),
      ).toEqual([]);
      expect(await ids()).toEqual(["u1", "u2", "a1", "x1", "x2", "u4", "r1"]);
      // Messages without an event id are appended; other contexts are not looked at.
      await t.store.history.context("web:b").append(user("elsewhere", "evt-9"));
      expect(await appendUnlessStored(history, [message("plain"), user("u9", "evt-9")], { last: 3 })).toEqual(
        [],
      );
      expect((await ids()).slice(-2)).toEqual(["plain", "u9"]);
    });

    it("keeps meta per context and applies updates in turn", async () => {
      const history = t.store.history.context("web:a");
      expect(await history.meta()).toEqual({});
      await Promise.all(
        Array.from({ length: 10 }, () =>
          history.updateMeta((meta) => ({ ...meta, count: ((meta.count as number) ?? 0) + 1 })),
        ),
      );
      expect((await history.meta()).count).toBe(10);
      expect(await t.store.history.context("web:b").meta()).toEqual({});
    });

    it("compacts older messages into a summary, keeping the newest and anything appended meanwhile", async () => {
      const history = t.store.history.context("web:a");
      await history.append(Array.from({ length: 6 }, (_, index) => message(`m${index}`)));
      const result = await history.compact({
        keepLast: 2,
        reason: "test",
        async summarize(older) {
          await history.append(message("during"));
          return `summary of ${older.length}`;
        },
      });
      expect(result).toMatchObject({ archivedCount: 4, keptCount: 3, summary: "summary of 4" });
      const after = await history.read();
      expect(after.map((entry) => entry.id).slice(1)).toEqual(["m4", "m5", "during"]);
      expect(messageText(after[0] as HistoryMessage)).toBe("summary of 4");
      expect(after[0]?.metadata?.kind).toBe("summary");
      expect((await history.meta()).compaction).toMatchObject({ keepLast: 2, archivedCount: 4 });
      expect(await history.compact({ keepLast: 10, summarize: async () => "none" })).toBeUndefined();
    });

    it("reads back what compaction archived, oldest archive first, and chat_load_history finds it", async () => {
      const history = t.store.history.context("web:a");
      expect(await history.readArchive()).toEqual([]);
      await history.append(Array.from({ length: 4 }, (_, index) => message(`m${index}`, `note ${index}`)));
      await history.compact({ keepLast: 2, summarize: async () => "first summary" });
      // Archives are ordered by their time: the second must not share the first one's millisecond.
      const first = Date.now();
      while (Date.now() === first) await new Promise((resolve) => setImmediate(resolve));
      await history.append([message("m4", "the secret word is kumquat"), message("m5")]);
      await history.compact({ keepLast: 1, summarize: async () => "second summary" });
      const archived = await history.readArchive();
      expect(archived.map((entry) => entry.id)).toEqual([
        "m0",
        "m1",
        expect.stringMatching(/^summary-/),
        "m2",
        "m3",
        "m4",
      ]);
      const tools = createChatTools({
        history,
        visibleMessageIds: () => new Set(["m5"]),
        deliver: async () => ({ contextId: "web:a" }),
      });
      const found = await tools.chat_load_history?.execute?.(
        { count: 20, keyword: "KUMQUAT" },
        { toolCallId: "t1", messages: [] },
      );
      expect(found).toMatchObject({ found: 1, messages: [{ id: "m4", role: "user" }] });
      const recent = await tools.chat_load_history?.execute?.(
        { count: 3 },
        { toolCallId: "t2", messages: [] },
      );
      expect((recent as { messages: Array<{ id: string }> }).messages.map((entry) => entry.id)).toEqual([
        "m2",
        "m3",
        "m4",
      ]);
    });

    it("keeps a large message intact", async () => {
      const text = "日本語".repeat(400_000);
      await t.store.history.context("web:a").append(message("big", text));
      const [read] = await t.store.history.context("web:a").read({ last: 1 });
      expect(messageText(read as HistoryMessage)).toBe(text);
    });

    it("keeps every append of concurrent writers, each once and in each writer's order", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      await Promise.all(
        workers.map(async (worker, number) => {
          for (let index = 0; index < 20; index++)
            await worker.history.context("web:a").append(message(`w${number}-${index}`));
        }),
      );
      const ids = (await t.store.history.context("web:a").read()).map((entry) => entry.id);
      await closeAll(workers.filter((worker) => worker !== t.store));
      expect(ids).toHaveLength(60);
      for (let number = 0; number < 3; number++)
        expect(ids.filter((id) => id.startsWith(`w${number}-`))).toEqual(
          Array.from({ length: 20 }, (_, index) => `w${number}-${index}`),
        );
    });
  });
}
