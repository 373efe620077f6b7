import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createUsageLog, type UsageStore } from "@downcity/core";
import type { UsageRecord } from "@downcity/core/usage";
import { describe, expect, it } from "vitest";
import { settlingUsageStore } from "./settling-usage-store.js";

const record = (step: number): UsageRecord => ({
  at: "2026-11-27T10:00:00.000Z",
  contextId: "cli:main",
  requestId: "r1",
  step,
  provider: "scripted",
  model: "scripted-1",
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 0,
  totalTokens: 15,
  durationMs: 3,
  finishReason: "stop",
});

describe("settlingUsageStore", () => {
  it("waits for the appends under way, those made while it waits, and failed ones", async () => {
    const written: number[] = [];
    const releases: Array<() => void> = [];
    const slow: UsageStore = {
      append: (entry) =>
        new Promise((resolve, reject) =>
          releases.push(() => {
            if (entry.step === 1) return reject(new Error("disk full"));
            written.push(entry.step);
            resolve();
          }),
        ),
      read: async () => [],
    };
    const store = settlingUsageStore(slow);
    void store.append(record(0));
    store.append(record(1)).catch(() => {});
    let settled = false;
    const waiting = store.settled().then(() => {
      settled = true;
    });
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    // An append made while the stop waits (a run's last step) is waited for too.
    void store.append(record(2));
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    releases.shift()?.();
    await waiting;
    expect(written).toEqual([0, 2]);
    expect(store.prune).toBeUndefined();
  });

  it("has every record of a burst in the usage log once settled", async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "settling-usage-"));
    try {
      const log = createUsageLog({ rootDir });
      const store = settlingUsageStore(log);
      for (let step = 0; step < 200; step++) void store.append(record(step));
      await store.settled();
      const [file] = await readdir(log.dir);
      const lines = (await readFile(join(log.dir, file as string), "utf8")).trim().split("\n");
      expect(lines.map((line) => JSON.parse(line).step)).toEqual([...Array(200).keys()]);
      expect(await store.read({ requestId: "r1" })).toHaveLength(200);
    } finally {
      await rm(rootDir, { recursive: true, force: true });
    }
  });
});
