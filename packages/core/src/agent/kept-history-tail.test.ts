import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "../history/history-message.js";
import { countingHistoryStore } from "../test/counting-history-store.js";
import { createScriptedModel } from "../test/scripted-model.js";
import { createAgentRuntime } from "./agent-runtime.js";
import { keepableTail } from "./kept-history-tail.js";

const temp = useTempDir("downcity-kept-tail-", "each");

const countingStore = (rootDir: string) => {
  const { store, calls } = countingHistoryStore(rootDir, "read");
  return { store, reads: calls };
};

const message = (id: string): HistoryMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: id }],
  metadata: { createdAt: "2026-11-26T00:00:00.000Z" },
});
const ids = (messages: readonly HistoryMessage[]) => messages.map((entry) => entry.id);

describe("keepableTail", () => {
  it("answers tail reads a span's read covers, extended by its own appends, and reads the store outside a span", async () => {
    const { store, reads } = countingStore(temp.path);
    await store.context("c").append([message("m1"), message("m2"), message("m3")]);
    const tail = keepableTail(store.context("c"));
    await tail.history.read({ last: 2 });
    await tail.history.read({ last: 2 });
    expect(reads()).toBe(2);
    const release = tail.keep();
    expect(ids(await tail.history.read({ last: 2 }))).toEqual(["m2", "m3"]);
    const appended = message("m4");
    await tail.history.append(appended);
    appended.parts = [];
    expect(ids(await tail.history.read({ last: 3 }))).toEqual(["m2", "m3", "m4"]);
    expect((await tail.history.read({ last: 1 }))[0]).toEqual(message("m4"));
    expect(await tail.history.read({ last: 0 })).toEqual([]);
    expect(reads()).toBe(3);
    // More than the kept tail holds: read from the store, and kept from then on.
    expect(ids(await tail.history.read({ last: 10 }))).toEqual(["m1", "m2", "m3", "m4"]);
    expect(ids(await tail.history.read({ last: 50 }))).toEqual(["m1", "m2", "m3", "m4"]);
    expect(reads()).toBe(4);
    release();
    // Between runs another worker may write: the next span reads again and sees it.
    await store.context("c").append(message("elsewhere"));
    const next = tail.keep();
    expect(ids(await tail.history.read({ last: 1 }))).toEqual(["elsewhere"]);
    expect(reads()).toBe(5);
    next();
  });

  it("drops the kept tail on a compaction, and keeps no read that overlapped an append", async () => {
    const { store, reads } = countingStore(temp.path);
    await store.context("c").append([message("m1"), message("m2"), message("m3")]);
    const tail = keepableTail(store.context("c"));
    const release = tail.keep();
    await tail.history.read({ last: 5 });
    await tail.history.compact({ keepLast: 1, summarize: async () => "summary" });
    expect(ids(await tail.history.read({ last: 5 })).slice(1)).toEqual(["m3"]);
    expect(reads()).toBe(2);
    release();
    // A read under way while an append lands may or may not hold it: neither it nor the append is kept.
    const again = tail.keep();
    const reading = tail.history.read({ last: 5 });
    await tail.history.append(message("m4"));
    await reading;
    expect(ids(await tail.history.read({ last: 1 }))).toEqual(["m4"]);
    expect(reads()).toBe(4);
    again();
  });

  it("lets a run-end listener read the run's tail, its answer included, without another store read", async () => {
    const { store, reads } = countingStore(temp.path);
    const runtime = createAgentRuntime({
      rootDir: temp.path,
      model: createScriptedModel(["first answer", "second answer"]).model,
      sharedHistory: store,
    });
    const seen: Array<Promise<string[]>> = [];
    runtime.on((event) => {
      if (event.type === "run-end") seen.push(runtime.history(event.contextId).read({ last: 2 }).then(ids));
    });
    const incoming = { contextId: "tg:1", channel: "tg", chatId: "1" };
    await runtime.send({ ...incoming, text: "hello", messageId: "tg:1" });
    // The window's read only: the listener's was answered from it (2 without the span).
    expect(reads()).toBe(1);
    const [first] = await Promise.all(seen);
    const stored = await runtime.history("tg:1").read({ last: 2 });
    expect(first).toEqual(ids(stored));
    expect(stored.map((entry) => entry.role)).toEqual(["user", "assistant"]);
    expect(reads()).toBe(2);
    await runtime.send({ ...incoming, text: "again", messageId: "tg:2" });
    expect(reads()).toBe(3);
    await runtime.close();
  });
});
