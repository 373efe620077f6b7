import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { messageText } from "@downcity/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createTaskFixture, type TaskFixture, taskText } from "../testing/task-fixture.js";

let fx: TaskFixture;
beforeEach(async () => {
  fx = await createTaskFixture();
});
afterEach(async () => {
  await fx.dispose();
});

const readRun = async (id: string, runId: string) =>
  JSON.parse(await readFile(join(fx.rootDir, ".downcity", "task", id, runId, "run.json"), "utf8"));

// fs.watch delivery and the reload after it can take well over vitest's 1 s default on a busy machine.
const settled = { timeout: 10_000, interval: 20 };

const internalMessages = async (contextId: string) =>
  (await fx.runtime.history(contextId).read()).filter(
    (message) => message.role === "user" && message.metadata?.origin === "internal",
  );

describe("task scheduler: timing", () => {
  it("keeps exactly one timer, armed for the earliest fire", async () => {
    await fx.writeTask("daily", taskText({ title: "Daily", when: "0 9 * * *" }));
    await fx.writeTask("ten", taskText({ title: "Ten", when: "*/10 * * * *" }));
    await fx.writeTask("manual", taskText({ title: "Manual", when: "@manual" }));
    await fx.writeTask("paused", taskText({ title: "Paused", when: "* * * * *", status: "paused" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    expect(fx.clock.pending()).toBe(1);
    expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:00:00.000Z");
    const { tasks } = await scheduler.list();
    expect(Object.fromEntries(tasks.map((task) => [task.id, task.nextFireAt]))).toEqual({
      daily: "2025-06-01T09:00:00.000Z",
      ten: "2025-06-01T09:00:00.000Z",
      manual: null,
      paused: null,
    });
    await fx.clock.advance(60_000);
    await scheduler.idle();
    expect(fx.clock.pending()).toBe(1);
    expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:10:00.000Z");
    expect(await fx.runDirs("daily")).toHaveLength(1);
    expect(await fx.runDirs("ten")).toHaveLength(1);
    expect(await fx.runDirs("paused")).toHaveLength(0);
  });

  it("folds the periodic re-scan into the same single timer", async () => {
    await fx.writeTask("daily", taskText({ title: "Daily", when: "0 12 * * *" }));
    const scheduler = fx.scheduler({ rescanIntervalMs: 30_000 });
    await scheduler.start();
    expect(fx.clock.pending()).toBe(1);
    expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T08:59:30.000Z");
    await fx.writeTask("soon", taskText({ title: "Soon", when: "0 9 * * *" }));
    await fx.clock.advance(30_000);
    await vi.waitFor(() => expect(scheduler.status().tasks).toBe(2), settled);
    expect(fx.clock.pending()).toBe(1);
    expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:00:00.000Z");
  });

  it("reads each task in its own time zone", async () => {
    await fx.writeTask("tokyo", taskText({ title: "T", when: "0 18 * * *", timezone: "Asia/Tokyo" }));
    await fx.writeTask("ny", taskText({ title: "N", when: "0 5 * * *", timezone: "America/New_York" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    const { tasks } = await scheduler.list();
    expect(tasks.find((task) => task.id === "tokyo")?.nextFireAt).toBe("2025-06-01T09:00:00.000Z");
    expect(tasks.find((task) => task.id === "ny")?.nextFireAt).toBe("2025-06-01T09:00:00.000Z");
  });

  it("fires a daily task once a day across a DST change", async () => {
    const dst = await createTaskFixture("2025-11-01T12:00:00Z");
    try {
      await dst.writeTask(
        "nightly",
        taskText({ title: "N", when: "30 1 * * *", timezone: "America/New_York" }),
      );
      const scheduler = dst.scheduler();
      await scheduler.start();
      // Step timer by timer (letting each run finish) up to the 4th.
      for (let next = dst.clock.nextTimerAt(); next && next < new Date("2025-11-04T12:00:00Z"); ) {
        await dst.clock.set(next);
        await scheduler.idle();
        next = dst.clock.nextTimerAt();
      }
      const runs = await dst.runDirs("nightly");
      expect(runs).toEqual([
        "2025-11-02T05-30-00-000Z",
        "2025-11-03T06-30-00-000Z",
        "2025-11-04T06-30-00-000Z",
      ]);
    } finally {
      await dst.dispose();
    }
  });
});

describe("task scheduler: runs", () => {
  it("fills the run folder and announces the result to notify exactly once", async () => {
    await fx.writeTask(
      "report",
      taskText({ title: "Report", when: "0 9 * * *", notify: "console:main" }, "Count the open issues."),
    );
    const scheduler = fx.scheduler();
    await scheduler.start();
    await fx.clock.advance(60_000);
    await scheduler.idle();
    const [runId] = await fx.runDirs("report");
    expect(runId).toBe("2025-06-01T09-00-00-000Z");
    const dir = join(fx.rootDir, ".downcity", "task", "report", runId as string);
    expect((await readdir(dir)).sort()).toEqual(
      expect.arrayContaining(["input.md", "messages.jsonl", "output.md", "result.md", "run.json"]),
    );
    expect(existsSync(join(dir, "error.md"))).toBe(false);
    const input = await readFile(join(dir, "input.md"), "utf8");
    expect(input).toContain("Count the open issues.");
    expect(await readFile(join(dir, "output.md"), "utf8")).toBe("done: Count the open issues.\n");
    const record = await readRun("report", runId as string);
    expect(record).toMatchObject({
      taskId: "report",
      runId,
      contextId: `task-run:report:${runId}`,
      trigger: "cron",
      scheduledFor: "2025-06-01T09:00:00.000Z",
      startedAt: "2025-06-01T09:00:00.000Z",
      endedAt: "2025-06-01T09:00:00.000Z",
      status: "succeeded",
      notify: "console:main",
    });
    const history = (await readFile(join(dir, "messages.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(history.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(messageText(history[0])).toBe(input);
    expect(existsSync(join(fx.rootDir, ".downcity", "context"))).toBe(true); // the notify context only
    expect(await readdir(join(fx.rootDir, ".downcity", "context"))).toEqual(["console%3Amain"]);
    const notices = await internalMessages("console:main");
    expect(notices).toHaveLength(1);
    const result = await readFile(join(dir, "result.md"), "utf8");
    expect(messageText(notices[0] as never)).toBe(result.trimEnd());
    expect(result).toContain("done: Count the open issues.");
  });

  it("records a failed run in error.md and run.json and still announces it once", async () => {
    fx.behave(() => new Error("model exploded"));
    await fx.writeTask("report", taskText({ title: "Report", when: "@manual", notify: "console:main" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    const record = await scheduler.run("report", { wait: true });
    await scheduler.idle();
    expect(record).toMatchObject({ status: "failed", trigger: "manual", error: { code: "MODEL_ERROR" } });
    const error = await readFile(join(record.dir, "error.md"), "utf8");
    expect(error).toContain("MODEL_ERROR");
    expect(error).toContain("model exploded");
    expect(await readRun("report", record.runId)).toMatchObject({
      status: "failed",
      error: { code: "MODEL_ERROR" },
    });
    expect(existsSync(join(record.dir, "output.md"))).toBe(false);
    const notices = await internalMessages("console:main");
    expect(notices).toHaveLength(1);
    expect(messageText(notices[0] as never)).toMatch(/failed .*MODEL_ERROR/);
  });

  it("skips (and logs) a tick that finds the previous run still going", async () => {
    const gate = fx.gate();
    fx.behave(async () => {
      await gate.wait;
      return "slow done";
    });
    await fx.writeTask("minutely", taskText({ title: "M", when: "* * * * *" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    await fx.clock.advance(60_000);
    await vi.waitFor(() => expect(scheduler.status().runsInProgress).toBe(1), settled);
    await fx.clock.advance(60_000);
    expect(fx.events.filter((event) => event.type === "task-run-skip")).toEqual([
      {
        type: "task-run-skip",
        taskId: "minutely",
        scheduledFor: "2025-06-01T09:01:00.000Z",
        reason: "overlap",
      },
    ]);
    expect(fx.logs.some((log) => /still under way/.test(log.message ?? ""))).toBe(true);
    gate.open();
    await scheduler.idle();
    expect(await fx.runDirs("minutely")).toHaveLength(1);
    await fx.clock.advance(60_000);
    await scheduler.idle();
    expect(await fx.runDirs("minutely")).toHaveLength(2);
  });

  it("queues a manual run behind a cron run under way, never overlapping", async () => {
    const gate = fx.gate();
    fx.behave(async () => {
      await gate.wait;
      return "ok";
    });
    await fx.writeTask("report", taskText({ title: "R", when: "0 9 * * *" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    await fx.clock.advance(60_000);
    await vi.waitFor(() => expect(scheduler.status().runsInProgress).toBe(1), settled);
    const queued = await scheduler.run("report");
    expect(queued.status).toBe("queued");
    const again = await scheduler.run("report");
    expect(again.runId).toBe(queued.runId);
    gate.open();
    await scheduler.idle();
    const order = fx.events
      .filter((event) => event.type === "task-run-start" || event.type === "task-run-end")
      .map((event) => `${event.type}:${"trigger" in event ? event.trigger : event.status}`);
    expect(order).toEqual([
      "task-run-start:cron",
      "task-run-end:succeeded",
      "task-run-start:manual",
      "task-run-end:succeeded",
    ]);
    const runs = await scheduler.runs("report");
    expect(runs.map((run) => run.trigger)).toEqual(["manual", "cron"]);
    expect(runs[0]?.runId).toBe(queued.runId);
  });

  it("closing marks a run still going as interrupted", async () => {
    const gate = fx.gate();
    fx.behave(async () => {
      await gate.wait;
      return "late";
    });
    await fx.writeTask("report", taskText({ title: "R", when: "@manual" }));
    const scheduler = fx.scheduler({ closeGraceMs: 50 });
    await scheduler.start();
    const started = await scheduler.run("report");
    expect(started.status).toBe("running");
    await scheduler.close();
    expect(await readRun("report", started.runId)).toMatchObject({
      status: "interrupted",
      error: { code: "RUN_INTERRUPTED" },
    });
    // The model answers after shutdown: that late finish must not overwrite the interrupted record.
    gate.open();
    await fx.runtime.close();
    await scheduler.idle();
    expect(await readRun("report", started.runId)).toMatchObject({ status: "interrupted" });
  });

  it("marks a run left running by a dead process as interrupted at start", async () => {
    await fx.writeTask("report", taskText({ title: "R", when: "@manual" }));
    const dir = join(fx.rootDir, ".downcity", "task", "report", "2025-05-01T00-00-00-000Z");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "run.json"),
      JSON.stringify({
        taskId: "report",
        runId: "2025-05-01T00-00-00-000Z",
        status: "running",
        trigger: "cron",
      }),
    );
    const scheduler = fx.scheduler();
    await scheduler.start();
    const [run] = await scheduler.runs("report");
    expect(run).toMatchObject({ status: "interrupted", error: { code: "RUN_INTERRUPTED" } });
  });
});

describe("task scheduler: restarts", () => {
  it("catches up once on fires missed during downtime (catchUp: once), not for catchUp: skip", async () => {
    await fx.writeTask("once", taskText({ title: "O", when: "0 9 * * *" }));
    await fx.writeTask("skip", taskText({ title: "S", when: "0 9 * * *", catchUp: "skip" }));
    const first = fx.scheduler();
    await first.start();
    await fx.clock.advance(60_000);
    await first.idle();
    await first.close();
    expect(await fx.runDirs("once")).toHaveLength(1);
    expect(await fx.runDirs("skip")).toHaveLength(1);

    await fx.clock.set("2025-06-04T12:00:00Z"); // down for three fires
    const second = fx.scheduler();
    await second.start();
    await second.idle();
    const runs = await second.runs("once");
    expect(runs.map((run) => [run.trigger, run.scheduledFor])).toEqual([
      ["catch-up", "2025-06-04T09:00:00.000Z"],
      ["cron", "2025-06-01T09:00:00.000Z"],
    ]);
    expect(await fx.runDirs("skip")).toHaveLength(1);
    expect(fx.events).toContainEqual({
      type: "task-run-skip",
      taskId: "skip",
      scheduledFor: "2025-06-04T09:00:00.000Z",
      reason: "missed",
    });
    expect((await second.get("once")).nextFireAt).toBe("2025-06-05T09:00:00.000Z");
    await second.close();

    const third = fx.scheduler();
    await third.start();
    await third.idle();
    expect(await fx.runDirs("once")).toHaveLength(2);
  });

  it("does not catch up for a task first seen after the missed time", async () => {
    await fx.clock.set("2025-06-01T10:00:00Z");
    await fx.writeTask("fresh", taskText({ title: "F", when: "0 9 * * *" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    await scheduler.idle();
    expect(await fx.runDirs("fresh")).toHaveLength(0);
  });

  it("runs a one-shot once, marks it done and never runs it again after a restart", async () => {
    const path = await fx.writeTask(
      "remind",
      taskText({ title: "Remind", when: "time:2025-06-01T11:00:00+02:00" }),
    );
    const first = fx.scheduler();
    await first.start();
    expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:00:00.000Z");
    await fx.clock.advance(60_000);
    await first.idle();
    expect(await fx.runDirs("remind")).toHaveLength(1);
    expect(await readFile(path, "utf8")).toMatch(/status: done/);
    expect(fx.clock.pending()).toBe(0);
    await first.close();

    await fx.clock.advance(3_600_000);
    const second = fx.scheduler();
    await second.start();
    await second.idle();
    expect(await fx.runDirs("remind")).toHaveLength(1);
    expect(await second.get("remind")).toMatchObject({ status: "done", nextFireAt: null });
  });

  it("runs a one-shot missed during downtime once at start", async () => {
    await fx.writeTask("remind", taskText({ title: "Remind", when: "time:2025-06-01T08:00:00Z" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    await scheduler.idle();
    const runs = await scheduler.runs("remind");
    expect(runs.map((run) => run.trigger)).toEqual(["catch-up"]);
    expect((await scheduler.get("remind")).status).toBe("done");
  });
});

describe("task scheduler: task files", () => {
  it("follows edits, pauses, additions and deletions while running (file watching)", async () => {
    const path = await fx.writeTask("report", taskText({ title: "R", when: "0 9 * * *" }));
    const scheduler = fx.scheduler({ watch: true });
    await scheduler.start();
    expect(scheduler.status().nextFireAt).toBe("2025-06-01T09:00:00.000Z");

    await writeFile(path, taskText({ title: "R", when: "30 9 * * *" }));
    await vi.waitFor(
      () => expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:30:00.000Z"),
      settled,
    );

    await writeFile(path, taskText({ title: "R", when: "30 9 * * *", status: "paused" }));
    await vi.waitFor(() => expect(fx.clock.pending()).toBe(0), settled);

    await fx.writeTask("added", taskText({ title: "A", when: "15 9 * * *" }));
    await vi.waitFor(
      () => expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:15:00.000Z"),
      settled,
    );

    await rm(join(fx.rootDir, ".downcity", "task", "added"), { recursive: true });
    await vi.waitFor(() => expect(scheduler.status().tasks).toBe(1), settled);
    expect(fx.clock.pending()).toBe(0);

    await writeFile(path, taskText({ title: "R", when: "45 9 * * *" }));
    await vi.waitFor(
      () => expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:45:00.000Z"),
      settled,
    );
    await fx.clock.set("2025-06-01T09:45:00Z");
    await scheduler.idle();
    expect(await fx.runDirs("report")).toHaveLength(1);
  });

  it("picks up a task folder created empty and filled a moment later, without the periodic re-scan", async () => {
    const scheduler = fx.scheduler({ watch: true, rescanIntervalMs: 3_600_000 });
    await scheduler.start();
    expect(scheduler.status().tasks).toBe(0);
    const folder = join(fx.rootDir, ".downcity", "task", "late");
    const reloads = () => fx.events.filter((event) => event.type === "tasks-reload").length;
    const before = reloads();
    await mkdir(folder);
    await vi.waitFor(() => expect(reloads()).toBeGreaterThan(before), settled); // scanned: a folder without task.md yet
    // The scan that reported the folder found no task.md in it, so it added nothing.
    expect(scheduler.status().tasks).toBe(0);
    await writeFile(join(folder, "task.md"), taskText({ title: "L", when: "20 9 * * *" }));
    await vi.waitFor(() => expect(scheduler.status().tasks).toBe(1), settled);
    // The reload counts the task before it arms the timer (the watcher's sync comes between): wait for both.
    await vi.waitFor(
      () => expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:20:00.000Z"),
      settled,
    );
    // Created and written back to back (the usual `mkdir && write`), too.
    await mkdir(join(fx.rootDir, ".downcity", "task", "quick"));
    await writeFile(
      join(fx.rootDir, ".downcity", "task", "quick", "task.md"),
      taskText({ title: "Q", when: "10 9 * * *" }),
    );
    await vi.waitFor(() => expect(scheduler.status().tasks).toBe(2), settled);
    await vi.waitFor(
      () => expect(fx.clock.nextTimerAt()?.toISOString()).toBe("2025-06-01T09:10:00.000Z"),
      settled,
    );
  });

  it("reports malformed task files (path, field, reason) and keeps the others", async () => {
    await fx.writeTask("good", taskText({ title: "G", when: "0 9 * * *" }));
    const bad = await fx.writeTask("bad", taskText({ title: "B", when: "0 99 * * *" }));
    const yaml = await fx.writeTask("yaml", "---\ntitle: Y\nwhen: @daily\n---\nbody\n");
    const slug = await fx.writeTask("Not_A_Slug", taskText({ title: "N", when: "@daily" }));
    const scheduler = fx.scheduler();
    await scheduler.start();
    const { tasks, problems } = await scheduler.list();
    expect(tasks.map((task) => task.id)).toEqual(["good"]);
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: bad, field: "when", reason: expect.stringContaining('"0 99 * * *"') },
        { path: yaml, field: "front matter", reason: expect.stringContaining("invalid YAML") },
        { path: slug, field: "id", reason: expect.stringContaining("not a valid task id") },
      ]),
    );
    expect(fx.events.filter((event) => event.type === "task-file-invalid")).toHaveLength(3);
    await scheduler.reload();
    expect(fx.events.filter((event) => event.type === "task-file-invalid")).toHaveLength(3); // reported once
    expect(fx.logs.filter((log) => log.level === "warn" && /malformed/.test(log.message ?? ""))).toHaveLength(
      3,
    );
    await expect(scheduler.run("bad")).rejects.toThrow(/Task bad is malformed \(when: /);
  });
});
