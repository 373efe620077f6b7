import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { useTempDir } from "@downcity/testkit/vitest";
import { expect, test } from "vitest";
import { captureCliIo } from "../../test/capture-cli-io.js";
import { runCli } from "../run-cli.js";

const temp = useTempDir("dc-usage-purpose-");

const call = (requestId: string, purpose: string | undefined, totalTokens: number, estimated = false) => ({
  at: "2026-11-20T10:00:00.000Z",
  contextId: "tg:1",
  requestId,
  step: 0,
  provider: "openai.chat",
  model: "gpt-4.1-mini",
  inputTokens: totalTokens - 10,
  outputTokens: 10,
  cachedInputTokens: purpose === "step" ? 64 : 0,
  totalTokens,
  durationMs: 100,
  finishReason: estimated ? "aborted" : "stop",
  ...(purpose ? { purpose } : {}),
  ...(estimated ? { estimated: true } : {}),
});

test("usage --request sums one run's calls by purpose, counting its compaction and its cut-off step", async () => {
  await writeFile(join(temp.path, "downcity.json"), "{}\n");
  const dir = join(temp.path, ".downcity", "usage");
  await mkdir(dir, { recursive: true });
  const records = [
    call("r-1", undefined, 110), // written before purposes were recorded: a step
    call("r-2", "compaction", 300),
    call("r-2", "step", 200),
    call("r-2", "step", 150, true),
    call("", "memory", 500),
  ];
  await writeFile(join(dir, "2026-11-20.jsonl"), records.map((record) => JSON.stringify(record)).join("\n"));
  const env = { ...process.env, DOWNCITY_HOME: join(temp.path, "home") };
  const one = captureCliIo(env, temp.path);
  expect(await runCli({ argv: ["usage", "--request", "r-2"], io: one.io }), one.out.stderr).toBe(0);
  expect(one.out.stdout).toContain("3 model calls (all time, all contexts, run r-2)");
  expect(one.out.stdout).toContain("1 call cut off before the provider reported usage");
  expect(one.out.stdout).toMatch(/compaction {2}1 call, 300 tokens/);
  expect(one.out.stdout).toMatch(/step {2}2 calls, 350 tokens, 128 cached input/);
  const all = captureCliIo(env, temp.path);
  expect(await runCli({ argv: ["usage", "--json"], io: all.io }), all.out.stderr).toBe(0);
  expect(JSON.parse(all.out.stdout)).toMatchObject({
    calls: 5,
    totalTokens: 1260,
    cachedInputTokens: 128,
    estimatedCalls: 1,
    byPurpose: [
      { purpose: "memory", calls: 1, totalTokens: 500 },
      { purpose: "step", calls: 3, totalTokens: 460 },
      { purpose: "compaction", calls: 1, totalTokens: 300 },
    ],
  });
});
