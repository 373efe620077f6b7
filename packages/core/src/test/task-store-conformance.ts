import { expect, it } from "vitest";
import type { DowncityStore } from "../store/downcity-store.js";
import type { TaskStore } from "../store/task-store.js";
import {
  closeAll,
  describeStoreSuite,
  openWorkers,
  pollFor,
  type StoreSuiteOptions,
} from "./store-suite-options.js";

const tasksOf = (store: DowncityStore): TaskStore => {
  if (!store.tasks) throw new Error("the store under test has no task store (DowncityStore.tasks)");
  return store.tasks;
};

const taskText = (title: string) => `---\ntitle: ${title}\nwhen: "@daily"\n---\n\nDo ${title}.\n`;
const fire = (taskId: string, scheduledFor: string, worker = "w1") => ({
  taskId,
  scheduledFor,
  runId: scheduledFor.replace(/[:.]/g, "-"),
  worker,
});

/**
 * The task store contract: definitions written and removed (a create never overwrites), fires
 * recorded once per task and instant (from any worker, also concurrently), run records newest
 * first, and one scheduler lease holder at a time; all kept across a restart.
 */
export function testTaskStore(options: StoreSuiteOptions): void {
  testSchedulerLease(options);
  describeStoreSuite(options, "task store", (t) => {
    it("writes, lists, reads and removes definitions; create never overwrites", async () => {
      const tasks = tasksOf(t.store);
      expect(await tasks.list()).toEqual([]);
      expect(await tasks.read("report")).toBeUndefined();
      expect(await tasks.write("report", taskText("report"), { create: true })).toBe(true);
      expect(await tasks.write("report", taskText("other"), { create: true })).toBe(false);
      expect(await tasks.read("report")).toBe(taskText("report"));
      expect(await tasks.write("report", taskText("report v2"))).toBe(true);
      expect(await tasks.write("backup", taskText("backup"))).toBe(true);
      const listed = await tasks.list();
      expect(listed.map((task) => [task.id, task.text]).sort()).toEqual([
        ["backup", taskText("backup")],
        ["report", taskText("report v2")],
      ]);
      for (const task of listed) if (task.createdAt) expect(Date.parse(task.createdAt)).not.toBeNaN();
      expect(await tasks.remove("report")).toBe(true);
      expect(await tasks.remove("report")).toBe(false);
      expect((await tasks.list()).map((task) => task.id)).toEqual(["backup"]);
    });

    it("records a fire once per task and instant, and reports each task's latest", async () => {
      const tasks = tasksOf(t.store);
      await tasks.write("report", taskText("report"));
      await tasks.write("backup", taskText("backup"));
      expect(await tasks.recordFire(fire("report", "2030-01-01T09:00:00.000Z"))).toBe(true);
      expect(await tasks.recordFire(fire("report", "2030-01-01T09:00:00.000Z", "w2"))).toBe(false);
      expect(await tasks.recordFire(fire("report", "2030-01-02T09:00:00.000Z"))).toBe(true);
      expect(await tasks.recordFire(fire("backup", "2030-01-01T09:00:00.000Z"))).toBe(true);
      expect(await tasks.lastFires()).toEqual({
        report: "2030-01-02T09:00:00.000Z",
        backup: "2030-01-01T09:00:00.000Z",
      });
      // A removed task's fires go with it: a task created again under its id starts afresh.
      await tasks.remove("report");
      expect(await tasks.lastFires()).toEqual({ backup: "2030-01-01T09:00:00.000Z" });
    });

    it("lets exactly one of many concurrent schedulers record the same fire", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      try {
        await tasksOf(t.store).write("report", taskText("report"));
        for (let round = 0; round < 5; round++) {
          const at = new Date(Date.UTC(2030, 0, 1, 9, round)).toISOString();
          const results = await Promise.all(
            Array.from({ length: 9 }, (_, index) =>
              tasksOf(workers[index % workers.length] as DowncityStore).recordFire(
                fire("report", at, `w${index}`),
              ),
            ),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
        }
      } finally {
        await closeAll(workers.slice(1));
      }
    });

    it("keeps run records by task, newest first, replacing a run's record when saved again", async () => {
      const tasks = tasksOf(t.store);
      await tasks.write("report", taskText("report"));
      const run = (runId: string, status: string) => ({ taskId: "report", runId, status, trigger: "cron" });
      await tasks.saveRun(run("2030-01-01T09-00-00-000Z", "running"));
      await tasks.saveRun(run("2030-01-02T09-00-00-000Z", "running"));
      await tasks.saveRun({
        ...run("2030-01-01T09-00-00-000Z", "succeeded"),
        endedAt: "2030-01-01T09:01:00Z",
      });
      const runs = await tasks.runs("report", 10);
      expect(runs.map((entry) => [entry.runId, entry.status])).toEqual([
        ["2030-01-02T09-00-00-000Z", "running"],
        ["2030-01-01T09-00-00-000Z", "succeeded"],
      ]);
      expect(runs[1]).toMatchObject({ trigger: "cron", endedAt: "2030-01-01T09:01:00Z" });
      expect((await tasks.runs("report", 1)).map((entry) => entry.runId)).toEqual([
        "2030-01-02T09-00-00-000Z",
      ]);
      expect(await tasks.runs("other", 10)).toEqual([]);
    });

    it("keeps definitions, fires and runs across a restart", async () => {
      const tasks = tasksOf(t.store);
      await tasks.write("report", taskText("report"));
      await tasks.recordFire(fire("report", "2030-01-01T09:00:00.000Z"));
      await tasks.saveRun({ taskId: "report", runId: "2030-01-01T09-00-00-000Z", status: "succeeded" });
      await t.store.close();
      t.store = await t.storage.open();
      const reopened = tasksOf(t.store);
      expect(await reopened.read("report")).toBe(taskText("report"));
      expect(await reopened.lastFires()).toEqual({ report: "2030-01-01T09:00:00.000Z" });
      expect(await reopened.recordFire(fire("report", "2030-01-01T09:00:00.000Z", "w2"))).toBe(false);
      expect((await reopened.runs("report", 5)).map((entry) => entry.status)).toEqual(["succeeded"]);
    });
  });
}

/** The scheduler lease: one holder, renewed by acquiring again, taken over once it lapsed or was released. */
function testSchedulerLease(options: StoreSuiteOptions): void {
  describeStoreSuite(options, "task store (scheduler lease)", (t) => {
    it("has one holder; the holder renews, others are refused until it releases", async () => {
      const lease = tasksOf(t.store).scheduler;
      expect(await lease.holder()).toBeUndefined();
      expect(await lease.acquire("w1", 5000)).toBe(true);
      expect(await lease.acquire("w2", 5000)).toBe(false);
      expect(await lease.acquire("w1", 5000)).toBe(true);
      expect(await lease.holder()).toBe("w1");
      await lease.release("w2");
      expect(await lease.holder()).toBe("w1");
      await lease.release("w1");
      expect(await lease.holder()).toBeUndefined();
      expect(await lease.acquire("w2", 5000)).toBe(true);
    });

    it("goes to another worker once the holder stops renewing", async () => {
      const lease = tasksOf(t.store).scheduler;
      expect(await lease.acquire("w1", 300)).toBe(true);
      const started = Date.now();
      await pollFor(async () => ((await lease.acquire("w2", 5000)) ? true : undefined), 5000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(await lease.holder()).toBe("w2");
      expect(await lease.acquire("w1", 5000)).toBe(false);
    });

    it("gives a free lease to exactly one of many concurrent workers", async () => {
      await t.store.close();
      const workers = await openWorkers(t.storage, options, 3);
      t.store = workers[0] as DowncityStore;
      try {
        const results = await Promise.all(
          Array.from({ length: 9 }, (_, index) =>
            tasksOf(workers[index % workers.length] as DowncityStore).scheduler.acquire(`w${index}`, 5000),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
      } finally {
        await closeAll(workers.slice(1));
      }
    });
  });
}
