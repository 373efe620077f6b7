import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openFileContactStore } from "../../store/file/file-contact-store.js";
import { createContactBook } from "./contact-book.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "downcity-contacts-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const contact = (user: number) => ({
  channel: "tg",
  userId: `u${user}`,
  username: `user${user}`,
  chatId: `c${user}`,
  chatType: "direct" as const,
  contextId: `tg:c${user}`,
  lastSeen: new Date(1_700_000_000_000 + user).toISOString(),
});

describe("createContactBook over contacts.json", () => {
  it("keeps every contact of a burst of events (the writes behind the first one are merged)", async () => {
    const path = join(dir, "contacts.json");
    const book = createContactBook(await openFileContactStore(path));
    const writes = Array.from({ length: 300 }, (_, user) => book.seen(contact(user)));
    await Promise.all(writes);
    await book.flush();
    const stored = JSON.parse(await readFile(path, "utf8")) as Array<{ id: string }>;
    expect(stored).toHaveLength(300);
    const reopened = createContactBook(await openFileContactStore(path));
    expect(await reopened.resolve("@USER299")).toMatchObject({ chatId: "c299", contextId: "tg:c299" });
    expect(await reopened.list()).toHaveLength(300);
    await expect(reopened.resolve("@nobody")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("writes a repeated sighting once a minute, and a changed one at once", async () => {
    const path = join(dir, "contacts.json");
    let clock = 1_700_000_000_000;
    const book = createContactBook(await openFileContactStore(path), { now: () => clock });
    const lastSeen = async () =>
      (JSON.parse(await readFile(path, "utf8")) as Array<{ lastSeen: string; chatId: string }>)[0];
    await book.seen({ ...contact(1), lastSeen: "2026-11-01T10:00:00.000Z" });
    clock += 30_000;
    await book.seen({ ...contact(1), lastSeen: "2026-11-01T10:00:30.000Z" });
    expect((await lastSeen())?.lastSeen).toBe("2026-11-01T10:00:00.000Z");
    await book.seen({ ...contact(1), chatId: "c9", lastSeen: "2026-11-01T10:00:31.000Z" });
    expect(await lastSeen()).toMatchObject({ chatId: "c9", lastSeen: "2026-11-01T10:00:31.000Z" });
    clock += 61_000;
    await book.seen({ ...contact(1), chatId: "c9", lastSeen: "2026-11-01T10:01:32.000Z" });
    expect((await lastSeen())?.lastSeen).toBe("2026-11-01T10:01:32.000Z");
  });
});
