import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFileChannelState } from "@downcity/core";
import { afterEach, describe, expect, it } from "vitest";
import { createOffsetStore } from "./offset-store.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir() {
  const dir = await mkdtemp(join(tmpdir(), "dc-tg-offset-"));
  dirs.push(dir);
  return dir;
}

describe("offset store", () => {
  it("returns what was saved for the same bot, within Telegram's 24 h retention", async () => {
    const dir = await tempDir();
    let now = new Date("2026-01-01T00:00:00Z");
    const store = createOffsetStore(openFileChannelState(dir), () => now);
    expect(await store.load(7)).toBeUndefined();
    await store.save(7, 1234);
    expect(await store.load(7)).toBe(1234);
    // Another bot (a new token) starts from Telegram's own queue.
    expect(await store.load(8)).toBeUndefined();
    now = new Date("2026-01-02T00:00:01Z");
    expect(await store.load(7)).toBeUndefined();
  });

  it("treats a corrupt file as no offset (Telegram redelivers; the inbox dedupes)", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "offset.json"), "{not json");
    expect(await createOffsetStore(openFileChannelState(dir)).load(7)).toBeUndefined();
  });
});
