import { readFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { describe, expect, it } from "vitest";
import { sumUsage, type UsageRecord } from "../usage-store.js";
import { createUsageLog } from "./file-usage-store.js";

const temp = useTempDir("downcity-usage-", "each");

const record = (at: string, contextId: string, model = "gpt-4.1-mini"): UsageRecord => ({
  at,
  contextId,
  requestId: `r-${at}`,
  step: 0,
  provider: "openai.chat",
  model,
  inputTokens: 100,
  outputTokens: 20,
  cachedInputTokens: 40,
  totalTokens: 120,
  durationMs: 900,
  finishReason: "stop",
});

describe("createUsageLog", () => {
  it("keeps one JSON-lines file per UTC day and reads them back filtered by time and context", async () => {
    const log = createUsageLog({ rootDir: temp.path });
    await Promise.all([
      log.append(record("2026-11-21T23:59:00.000Z", "cli:main")),
      log.append(record("2026-11-22T08:00:00.000Z", "cli:main", "claude")),
      log.append(record("2026-11-22T09:00:00.000Z", "telegram:42")),
    ]);
    // A torn line from a crash and a foreign file are skipped.
    await appendFile(join(log.dir, "2026-11-22.jsonl"), '{"at":"2026-11-22T10:');
    await appendFile(join(log.dir, "notes.txt"), "hello");
    expect(log.dir.endsWith(join(".downcity", "usage"))).toBe(true);
    expect(await log.read()).toHaveLength(3);
    const since = await log.read({ since: new Date("2026-11-22T08:30:00.000Z") });
    expect(since.map((entry) => entry.contextId)).toEqual(["telegram:42"]);
    expect((await log.read({ contextId: "cli:main" })).map((entry) => entry.model)).toEqual([
      "gpt-4.1-mini",
      "claude",
    ]);
    const totals = sumUsage(await log.read());
    expect(totals).toMatchObject({
      calls: 3,
      inputTokens: 300,
      outputTokens: 60,
      cachedInputTokens: 120,
      totalTokens: 360,
      durationMs: 2700,
    });
    expect(totals.byModel[0]).toMatchObject({ model: "gpt-4.1-mini", calls: 2, totalTokens: 240 });
  });

  it("writes the calls that come while a write runs together, so a burst does not wait as a write each", async () => {
    const log = createUsageLog({ rootDir: temp.path });
    const at = (index: number) => new Date(Date.parse("2026-11-22T08:00:00.000Z") + index).toISOString();
    const first = log.append(record(at(0), "cli:main"));
    const burst = Array.from({ length: 300 }, (_, index) => log.append(record(at(index + 1), "cli:main")));
    await burst[0];
    // Read at once: with one queued write a call (each kept alive with its caller's async context
    // until its turn), the burst's other 299 would still be waiting.
    const lines = () => readFileSync(join(log.dir, "2026-11-22.jsonl"), "utf8").split("\n").filter(Boolean);
    expect(lines()).toHaveLength(301);
    await Promise.all([first, ...burst]);
    expect(lines().map((line) => JSON.parse(line).at)).toEqual(
      Array.from({ length: 301 }, (_, index) => at(index)),
    );
  });

  it("reads nothing from a project that never logged usage", async () => {
    expect(await createUsageLog({ rootDir: temp.path }).read()).toEqual([]);
  });
});
