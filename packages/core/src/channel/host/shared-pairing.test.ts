import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChannelAccessStore } from "../../store/access-store.js";
import { createFileAccessStore } from "../../store/file/file-access-store.js";
import { openSharedPairing } from "./shared-pairing.js";

describe("shared pairing view", () => {
  let rootDir: string;
  let store: ChannelAccessStore;
  // Counts the store reads the view makes.
  let reads: number;
  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), "downcity-shared-pairing-"));
    const inner = createFileAccessStore((name) => join(rootDir, name)).channel("telegram");
    reads = 0;
    store = {
      ...inner,
      read: () => {
        reads += 1;
        return inner.read();
      },
    };
  });
  afterEach(() => rm(rootDir, { recursive: true, force: true }));

  it("sees its own changes at once", async () => {
    const pairing = await openSharedPairing(store, { maxAgeMs: 60_000 });
    const offered = await pairing.offer({ userId: "u1", chatId: "c1" });
    expect(pairing.listPending().map((entry) => entry.code)).toEqual([offered?.code]);
    await pairing.approve(offered?.code ?? "");
    expect(pairing.approved().has("u1")).toBe(true);
    await pairing.allowGroup({ chatId: "g1" });
    expect(pairing.allowedGroups().has("g1")).toBe(true);
  });

  it("sees another worker's revoke once its snapshot is older than maxAgeMs, and reads no more often", async () => {
    const pairing = await openSharedPairing(store, { maxAgeMs: 200 });
    await store.allow({ userId: "u1" });
    await pairing.refresh?.();
    const before = reads;
    // A fresh snapshot is not read again.
    await pairing.refresh?.();
    expect(reads).toBe(before);
    await store.revoke("u1");
    const revokedAt = Date.now();
    while (pairing.approved().has("u1")) {
      await pairing.refresh?.();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expect(reads - before).toBeLessThanOrEqual(Math.ceil((Date.now() - revokedAt) / 200) + 1);
  });

  it("keeps a change made while the store's read fails, and reads again at the next refresh", async () => {
    let failing = false;
    const flaky: ChannelAccessStore = {
      ...store,
      read: () => (failing ? Promise.reject(new Error("connection reset")) : store.read()),
    };
    const pairing = await openSharedPairing(flaky, { maxAgeMs: 60_000 });
    failing = true;
    expect(await pairing.allow({ userId: "u1" })).toMatchObject({ userId: "u1" });
    expect(pairing.approved().has("u1")).toBe(false);
    failing = false;
    await pairing.refresh?.();
    expect(pairing.approved().has("u1")).toBe(true);
  });
});
