import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { openFileInbox } from "./file-inbox.js";
import { openFileOutbox } from "./file-outbox.js";

const temp = useTempDir("downcity-inbox-", "each");

const event = (eventId: string) => ({
  channel: "tg",
  eventId,
  contextId: "tg:1",
  message: { text: `text ${eventId}` },
});

describe("openFileInbox", () => {
  it("keeps pending entries, dead letters and dedupe keys across a reopen", async () => {
    const path = join(temp.path, "inbox.jsonl");
    const first = await openFileInbox({ path });
    expect(await first.accept(event("1"))).toEqual({ result: "accepted", id: "tg:1" });
    expect(await first.accept(event("1"))).toEqual({ result: "duplicate", id: "tg:1" });
    await first.accept(event("2"));
    await first.accept(event("3"));
    await first.complete("tg:2");
    await first.fail("tg:3", "boom", 1);
    await first.close();

    const second = await openFileInbox({ path });
    expect((await second.list()).map((entry) => entry.id)).toEqual(["tg:1"]);
    expect(await second.list({ dead: true })).toEqual([
      expect.objectContaining({ id: "tg:3", attempts: 1, lastError: "boom" }),
    ]);
    expect((await second.accept(event("2"))).result).toBe("duplicate");
    expect((await second.accept(event("4"))).result).toBe("accepted");
    await second.close();
  });

  it("accepts concurrent events with group commit, every one on disk when its accept resolves", async () => {
    const path = join(temp.path, "inbox.jsonl");
    const store = await openFileInbox({ path });
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, index) => store.accept(event(String(index)))),
    );
    expect(results.every((result) => result.result === "accepted")).toBe(true);
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines).toHaveLength(300);
    await store.close();
  });

  it("loses nothing when compactions run in the middle of a flood of concurrent accepts", async () => {
    const path = join(temp.path, "inbox.jsonl");
    const store = await openFileInbox({ path, compactAfter: 40 });
    await Promise.all(Array.from({ length: 500 }, (_, index) => store.accept(event(String(index)))));
    await Promise.all(Array.from({ length: 250 }, (_, index) => store.complete(`tg:${index * 2}`)));
    await store.close();
    const reopened = await openFileInbox({ path });
    expect(await reopened.list()).toHaveLength(250);
    expect((await reopened.list()).every((entry) => Number(entry.eventId) % 2 === 1)).toBe(true);
    expect((await reopened.accept(event("0"))).result).toBe("duplicate");
    await reopened.close();
  });

  it("compacts to live entries and recent keys, forgetting keys older than the window", async () => {
    const path = join(temp.path, "inbox.jsonl");
    let now = new Date("2026-01-01T00:00:00Z");
    const store = await openFileInbox({ path, compactAfter: 10, dedupeWindowMs: 3600_000, now: () => now });
    await store.accept(event("old"));
    await store.complete("tg:old");
    now = new Date("2026-01-01T02:00:00Z");
    for (let index = 0; index < 4; index++) {
      await store.accept(event(`new${index}`));
      await store.complete(`tg:new${index}`);
    }
    await store.accept(event("live"));
    await store.close();
    const records = (await readFile(path, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.length).toBeLessThan(10);
    const reopened = await openFileInbox({ path, dedupeWindowMs: 3600_000, now: () => now });
    expect((await reopened.list()).map((entry) => entry.id)).toEqual(["tg:live"]);
    expect((await reopened.accept(event("new0"))).result).toBe("duplicate");
    expect((await reopened.accept(event("old"))).result).toBe("accepted");
    await reopened.close();
  });
});

describe("openFileOutbox", () => {
  it("knows a sent key after a reopen, so a replayed run does not send it again", async () => {
    const path = join(temp.path, "outbox.jsonl");
    const target = { chatId: "1" };
    const first = await openFileOutbox({ path });
    expect(await first.record({ key: "k1", channel: "tg", contextId: "tg:1", target, text: "a" })).toBe(
      "recorded",
    );
    expect(await first.record({ key: "k1", channel: "tg", contextId: "tg:1", target, text: "a" })).toBe(
      "known",
    );
    await first.complete("k1", "m1");
    await first.record({ key: "k2", channel: "tg", contextId: "tg:1", target, text: "b" });
    await first.close();
    const second = await openFileOutbox({ path });
    expect(await second.wasSent("k1")).toBe(true);
    expect(await second.record({ key: "k1", channel: "tg", contextId: "tg:1", target, text: "a" })).toBe(
      "known",
    );
    expect((await second.list()).map((entry) => entry.key)).toEqual(["k2"]);
    await second.close();
  });
});
