import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { expect, test } from "vitest";
import { runBuiltCli } from "../../test/run-built-cli.js";

const temp = useTempDir("dc-usage-");

const call = (model: string, inputTokens: number, cachedInputTokens: number) => ({
  at: "2026-11-20T10:00:00.000Z",
  contextId: "tg:1",
  requestId: `r-${model}-${inputTokens}`,
  step: 0,
  provider: "anthropic.messages",
  model,
  inputTokens,
  outputTokens: 10,
  cachedInputTokens,
  totalTokens: inputTokens + 10,
  durationMs: 100,
  finishReason: "stop",
});

test("usage shows the cached input tokens in the totals and per model", async () => {
  await writeFile(join(temp.path, "downcity.json"), "{}\n");
  const dir = join(temp.path, ".downcity", "usage");
  await mkdir(dir, { recursive: true });
  const records = [call("claude-a", 1000, 800), call("claude-a", 1200, 1000), call("claude-b", 500, 0)];
  await writeFile(join(dir, "2026-11-20.jsonl"), records.map((record) => JSON.stringify(record)).join("\n"));
  const text = await runBuiltCli(["usage"], {
    cwd: temp.path,
    env: { DOWNCITY_HOME: join(temp.path, "home") },
  });
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/input\s+2,700 tokens \(1,800 cached\)/);
  expect(text.stdout).toContain("claude-a  2 calls, 2,220 tokens, 1,800 cached input");
  expect(text.stdout).toContain("claude-b  1 call, 510 tokens, 0 cached input");
  const json = await runBuiltCli(["usage", "--json"], {
    cwd: temp.path,
    env: { DOWNCITY_HOME: join(temp.path, "home") },
  });
  expect(JSON.parse(json.stdout)).toMatchObject({
    cachedInputTokens: 1800,
    byModel: [
      { model: "claude-a", cachedInputTokens: 1800 },
      { model: "claude-b", cachedInputTokens: 0 },
    ],
  });
});
