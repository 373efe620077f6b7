import { existsSync } from "node:fs";
import { join } from "node:path";
import { startOpenAICompatibleServer } from "@downcity/core/scripted";
import { until } from "@downcity/testkit";
import { describe, expect, inject, it } from "vitest";
import { cleanupsAfterAll } from "./cluster-test-helpers.js";
import { createWorkerCluster } from "./worker-cluster.js";

describe("the daemon's runs API on PostgreSQL", () => {
  const cleanups = cleanupsAfterAll();

  it("lists and shows a run journaled to the store's tables, with no .downcity/runs folder", async () => {
    const model = await startOpenAICompatibleServer({ respond: async () => "Hello from the store." });
    cleanups.push(() => model.close());
    const cluster = await createWorkerCluster({
      adminUrl: inject("postgresUrl"),
      workers: 1,
      modelUrl: model.url,
      hook: { url: "http://127.0.0.1:9/unused", secret: "runs-api-secret-0123456789abcdef" },
    });
    cleanups.push(() => cluster.close());
    const [worker] = cluster.workers as [(typeof cluster.workers)[number]];
    try {
      await worker.start();
      const client = await worker.client();
      // With a shared store the message may be answered by whichever worker claims it: wait on the API.
      await client.chatSend({ contextId: "cli:main", text: "hello" });
      const runs = await until(async () => {
        const listed = (await client.runs({ context: "cli:main", status: "completed" })).runs;
        return listed.length > 0 ? listed : undefined;
      }, "the run to be listed as completed");
      expect(runs).toEqual([expect.objectContaining({ contextId: "cli:main", status: "completed" })]);
      const requestId = runs[0]?.requestId ?? "";
      const detail = await client.run(requestId);
      expect(detail.summary).toMatchObject({ requestId, steps: 1 });
      expect(JSON.stringify(detail.records)).toContain("Hello from the store.");
      expect(detail.records.map((record) => record.type)).toEqual(
        expect.arrayContaining(["run", "model-call", "step", "end"]),
      );
      // What the API showed came from PostgreSQL: the worker wrote no journal file.
      expect(existsSync(join(worker.rootDir, ".downcity", "runs"))).toBe(false);
      const [row] = await cluster.query<{ count: string }>(
        "SELECT count(*) AS count FROM downcity_run_records WHERE request_id = $1",
        [requestId],
      );
      expect(Number(row?.count)).toBe(detail.records.length);
      await worker.stop(5000);
    } catch (error) {
      cluster.keep();
      throw new Error(`${(error as Error).message}\n${await cluster.logTails(25)}`, { cause: error });
    }
  }, 180_000);
});
