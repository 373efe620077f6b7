import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openContactBook } from "./contact-book.js";

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

describe("openContactBook", () => {
  it("keeps every contact of a burst of events (the writes behind the first one are merged)", async () => {
    const path = join(dir, "contacts.json");
    const book = await openContactBook(path);
    const writes = Array.from({ length: 300 }, (_, user) => book.seen(contact(user)));
    await Promise.all(writes);
    await book.flush();
    const stored = JSON.parse(await readFile(path, "utf8")) as Array<{ id: string }>;
    expect(stored).toHaveLength(300);
    const reopened = await openContactBook(path);
    expect(reopened.resolve("@user299")).toMatchObject({ chatId: "c299", contextId: "tg:c299" });
    expect(reopened.list()).toHaveLength(300);
  });
});
