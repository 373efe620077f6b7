import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createUsageLog, type RuntimeEvent } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "./in-process-daemon.js";
import { createTempWorld } from "./temp-project.js";

describe("the usage log counts every model call the daemon makes", () => {
  let world: Awaited<ReturnType<typeof createTempWorld>>;
  beforeAll(async () => {
    world = await createTempWorld("dc-usage-every-call-");
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it("counts a compaction summary under its run and a step cut off by a cancel, estimated", async () => {
    const rootDir = world.project("usage");
    await initProject(rootDir);
    // A window of two messages: the second and third turns compact the history before their step.
    const configPath = join(rootDir, "downcity.json");
    const config = JSON.parse(await readFile(configPath, "utf8")) as Record<string, unknown>;
    await writeFile(configPath, JSON.stringify({ ...config, history: { keepLast: 2 } }, null, 2));
    const scripted = createScriptedModel([
      "first answer",
      "The user said hello; the agent answered.",
      "second answer",
      "Hello, an answer, a question and its answer.",
      // Streams for seconds, so the cancel cuts it off after some text went out.
      { text: "slow ".repeat(400), delayMs: 20 },
    ]);
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, scripted.model);
    try {
      const first = await client.chatSend({ contextId: "cli:main", text: "hello" });
      const second = await client.chatSend({ contextId: "cli:main", text: "and now?" });
      expect(second.text).toBe("second answer");
      const events: RuntimeEvent[] = [];
      const stream = new AbortController();
      const listening = (async () => {
        for await (const event of client.chatEvents("cli:main", { signal: stream.signal }))
          if (event.type !== "ready") events.push(event);
      })();
      const slow = client.chatSend({ contextId: "cli:main", text: "tell me slowly" });
      await until(
        () => events.filter((event) => event.type === "text-delta").length >= 5,
        "the slow answer to stream",
      );
      await client.chatCancel({ contextId: "cli:main" });
      const cancelled = await slow;
      expect(cancelled.aborted).toMatchObject({ reason: "cancelled" });
      stream.abort();
      await listening;

      const usageLog = createUsageLog({ rootDir });
      const records = await until(async () => {
        const all = await usageLog.read();
        return all.some((record) => record.estimated) ? all : undefined;
      }, "the cut-off step's usage line");
      // Finished steps as before (from the run's step events), one line each.
      expect(records.filter((record) => record.requestId === first.requestId)).toEqual([
        expect.objectContaining({ step: 0, inputTokens: 10, outputTokens: 10, finishReason: "stop" }),
      ]);
      // The compaction summary ran inside the second run: counted under it, with its purpose.
      const ofSecond = records.filter((record) => record.requestId === second.requestId);
      expect(ofSecond).toHaveLength(2);
      expect(ofSecond).toContainEqual(
        expect.objectContaining({ purpose: "compaction", contextId: "cli:main", inputTokens: 10 }),
      );
      // The cut-off step: its tokens were spent, so it counts, marked as an estimate.
      const cut = records.filter(
        (record) => record.requestId === cancelled.requestId && record.purpose !== "compaction",
      );
      expect(cut).toEqual([
        expect.objectContaining({ purpose: "step", estimated: true, finishReason: "aborted", step: 0 }),
      ]);
      expect(cut[0]?.inputTokens).toBeGreaterThan(0);
      expect(cut[0]?.outputTokens).toBeGreaterThan(0);
      // No call counted twice: two finished steps, two compactions, one cut-off step.
      expect(records).toHaveLength(5);
      expect(records.filter((record) => record.purpose === "compaction")).toHaveLength(2);
    } finally {
      await daemon.close();
    }
  });
});
