import { writeFile } from "node:fs/promises";
import { createScriptedModel } from "@downcity/core/scripted";
import { describe, expect, it } from "vitest";
import { initProject } from "../src/index.js";
import { startInProcessDaemon } from "../test/in-process-daemon.js";
import { createTempWorld } from "../test/temp-project.js";

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
};
const round = (value: number) => Math.round(value * 10) / 10;

describe("cancel latency", () => {
  it("from POST /api/chat/cancel to the lane being free again, during a running shell_exec: p50 <= 100 ms", async () => {
    const iterations = 30;
    const world = await createTempWorld("dc-bench-cancel-");
    const rootDir = world.project();
    await initProject(rootDir);
    const scripted = createScriptedModel(
      Array.from({ length: iterations }, () => ({
        toolCalls: [{ toolName: "shell_exec", input: { command: "sleep 30" } }],
      })),
    );
    const { daemon, client } = await startInProcessDaemon(rootDir, world.env, scripted.model);
    const events = new AbortController();
    const toolCalls: Array<() => void> = [];
    let ready: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const listening = (async () => {
      for await (const event of client.chatEvents("cli:bench", { signal: events.signal })) {
        if (event.type === "ready") ready();
        if (event.type === "tool-call") toolCalls.shift()?.();
      }
    })();
    await subscribed;
    const latencies: number[] = [];
    try {
      for (let index = 0; index < iterations; index++) {
        const calling = new Promise<void>((resolve) => toolCalls.push(resolve));
        const reply = client.chatSend({ contextId: "cli:bench", text: `run ${index}` });
        await calling;
        const started = performance.now();
        const { cancelled } = await client.chatCancel({ contextId: "cli:bench" });
        latencies.push(performance.now() - started);
        expect(cancelled).toHaveLength(1);
        expect((await reply).text).toBe("The run was cancelled on request.");
      }
    } finally {
      events.abort();
      await listening;
      await daemon.close();
      await world.cleanup();
    }
    const results = {
      cancelToLaneFreeMsP50: round(percentile(latencies, 50)),
      cancelToLaneFreeMsP99: round(percentile(latencies, 99)),
      iterations,
      machine: `${process.platform} ${process.arch}, node ${process.version}`,
    };
    await writeFile(
      new URL("./cancel-latency-results.json", import.meta.url),
      `${JSON.stringify(results, null, 2)}\n`,
    );
    console.log("cancel latency", results);
    expect(results.cancelToLaneFreeMsP50).toBeLessThanOrEqual(100);
  });
});
