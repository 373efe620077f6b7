import { useTempDir } from "@downcity/testkit/vitest";
import { expect, it } from "vitest";
import type { UsageRecord } from "../usage-store.js";
import { createUsageLog } from "./file-usage-store.js";

const temp = useTempDir("downcity-usage-request-", "each");

const call = (requestId: string, step: number): UsageRecord => ({
  at: "2026-11-25T10:00:00.000Z",
  contextId: "cli:main",
  requestId,
  step,
  provider: "openai.chat",
  model: "gpt-4.1-mini",
  inputTokens: 10,
  outputTokens: 2,
  cachedInputTokens: 0,
  totalTokens: 12,
  durationMs: 5,
  finishReason: "stop",
});

it("reads the model calls of one run (downcity usage --request)", async () => {
  const log = createUsageLog({ rootDir: temp.path });
  for (const record of [call("r1", 0), call("r2", 0), call("r1", 1)]) await log.append(record);
  expect((await log.read({ requestId: "r1" })).map((record) => record.step)).toEqual([0, 1]);
  expect(await log.read({ requestId: "nope" })).toEqual([]);
});
