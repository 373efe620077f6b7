import type { TaskStore } from "@downcity/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileTaskStore } from "../store/file-task-store.js";
import { createTaskFixture, type TaskFixture, taskText } from "../testing/task-fixture.js";

let fx: TaskFixture;
beforeEach(async () => {
  fx = await createTaskFixture();
});
afterEach(async () => {
  await fx.dispose();
});

const settled = { timeout: 10_000, interval: 20 };

describe("task scheduler: several schedulers on one store", () => {
  it("fires only on the lease holder; another worker takes over once the holder stops", async () => {
    const store = createFileTaskStore({ rootDir: fx.rootDir });
    await fx.writeTask("hourly", taskText({ title: "Hourly", when: "0 * * * *" }));
    const a = fx.scheduler({ store, worker: "a", leaseMs: 300 });
    const b = fx.scheduler({ store, worker: "b", leaseMs: 300 });
    await a.start();
    await b.start();
    expect([a.status().leading, b.status().leading]).toEqual([true, false]);
    // Both know the task; only the holder arms a timer for it.
    expect((await b.list()).tasks.map((task) => task.nextFireAt)).toEqual(["2025-06-01T09:00:00.000Z"]);
    expect(fx.clock.pending()).toBe(1);

    await fx.clock.advance(60_000);
    await a.idle();
    await a.stop();
    await vi.waitFor(() => expect(b.status().leading).toBe(true), settled);
    await fx.clock.set("2025-06-01T10:00:00Z");
    await vi.waitFor(async () => expect(await b.runs("hourly")).toHaveLength(2), settled);
    await b.idle();
    const runs = await b.runs("hourly");
    expect(runs.map((run) => [run.scheduledFor, run.worker, run.status])).toEqual([
      ["2025-06-01T10:00:00.000Z", "b", "succeeded"],
      ["2025-06-01T09:00:00.000Z", "a", "succeeded"],
    ]);
    expect(fx.events).toContainEqual({ type: "task-scheduler-lease", leading: true, worker: "b" });
  });

  it("never runs a fire another scheduler recorded, even when both believe they lead", async () => {
    const files = createFileTaskStore({ rootDir: fx.rootDir });
    // A split brain: a lease that every worker gets.
    const store: TaskStore = {
      ...files,
      scheduler: { acquire: async () => true, release: async () => {}, holder: async () => undefined },
    };
    await fx.writeTask("daily", taskText({ title: "Daily", when: "0 9 * * *" }));
    const a = fx.scheduler({ store, worker: "a" });
    const b = fx.scheduler({ store, worker: "b" });
    await a.start();
    await b.start();
    expect([a.status().leading, b.status().leading]).toEqual([true, true]);
    await fx.clock.advance(60_000);
    await vi.waitFor(
      () => expect(fx.events.filter((event) => event.type === "task-run-skip")).toHaveLength(1),
      settled,
    );
    await a.idle();
    await b.idle();
    expect(await fx.runDirs("daily")).toEqual(["2025-06-01T09-00-00-000Z"]);
    expect(fx.events.find((event) => event.type === "task-run-skip")).toMatchObject({
      taskId: "daily",
      scheduledFor: "2025-06-01T09:00:00.000Z",
      reason: "fired",
    });
    const prompts = fx.calls.filter((call) =>
      call.messages.some((message) => message.text.includes("[Task run]")),
    );
    expect(prompts).toHaveLength(1);
  });

  it("closes the scheduled run a lapsed leader left running, never another worker's manual run", async () => {
    const store = createFileTaskStore({ rootDir: fx.rootDir });
    await fx.writeTask("hourly", taskText({ title: "Hourly", when: "0 * * * *" }));
    await fx.writeTask("adhoc", taskText({ title: "Adhoc", when: "@manual" }));
    const left = (taskId: string, trigger: string, worker: string) => ({
      taskId,
      runId: "2025-06-01T08-00-00-000Z",
      contextId: `task-run:${taskId}:2025-06-01T08-00-00-000Z`,
      trigger,
      scheduledFor: "2025-06-01T08:00:00.000Z",
      startedAt: "2025-06-01T08:00:00.000Z",
      status: "running",
      worker,
    });
    await store.saveRun(left("hourly", "cron", "dead"));
    await store.saveRun(left("adhoc", "manual", "other"));
    const b = fx.scheduler({ store, worker: "b" });
    await b.start();
    expect(b.status().leading).toBe(true);
    const [hourly] = await b.runs("hourly");
    expect(hourly).toMatchObject({
      status: "interrupted",
      worker: "dead",
      error: { code: "RUN_INTERRUPTED" },
    });
    expect(hourly?.error?.message).toContain("dead");
    expect((await b.runs("adhoc"))[0]?.status).toBe("running");
  });
});
