import { readFile } from "node:fs/promises";
import { createAgentRuntime, createServiceRegistry } from "@downcity/core";
import { createScriptedModel } from "@downcity/core/scripted";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TaskScheduler } from "../scheduler/task-scheduler.js";
import { createTaskFixture, type TaskFixture } from "../testing/task-fixture.js";
import { createTaskService } from "./task-service.js";
import { createTaskTools } from "./task-tools.js";

let fx: TaskFixture;
let scheduler: TaskScheduler;
beforeEach(async () => {
  fx = await createTaskFixture();
  scheduler = fx.scheduler();
  await scheduler.start();
});
afterEach(async () => {
  await fx.dispose();
});

describe("task service", () => {
  it("is named task with the actions the CLI derives (list, create, update, run, pause, resume, delete, runs)", () => {
    const service = createTaskService(scheduler);
    expect(service.name).toBe("task");
    expect(Object.keys(service.actions)).toEqual([
      "list",
      "create",
      "update",
      "run",
      "pause",
      "resume",
      "delete",
      "runs",
    ]);
  });

  it("manages a task end to end through the registry", async () => {
    const registry = createServiceRegistry();
    registry.register(createTaskService(scheduler));
    const invoke = (action: string, payload: unknown) =>
      registry.invoke("task", action, payload, { contextId: "console:main" });

    await expect(
      invoke("create", { id: "report", title: "Report", when: "61 * * * *", body: "Do it" }),
    ).rejects.toThrow(/when "61 \* \* \* \*" is not a valid cron expression/);
    await expect(invoke("create", { id: "Bad Id", title: "R", when: "@daily", body: "x" })).rejects.toThrow(
      /not a valid task id/,
    );
    await expect(
      invoke("create", { id: "report", title: "R", when: "time:2020-01-01T00:00:00Z", body: "x" }),
    ).rejects.toThrow(/in the past/);

    const created = (await invoke("create", {
      id: "report",
      title: "Report",
      when: "0 9 * * *",
      body: "Summarise the day.",
    })) as { nextFireAt: string; notify: string; path: string };
    expect(created).toMatchObject({ nextFireAt: "2025-06-01T09:00:00.000Z", notify: "console:main" });
    expect(await readFile(created.path, "utf8")).toContain("Summarise the day.");
    await expect(
      invoke("create", { id: "report", title: "R", when: "@daily", body: "x" }),
    ).rejects.toMatchObject({
      code: "CONFLICT",
    });

    await expect(invoke("update", { id: "report", when: "0 25 * * *" })).rejects.toThrow(/"0 25 \* \* \*"/);
    expect(await invoke("update", { id: "report", when: "30 9 * * *", title: "Report v2" })).toMatchObject({
      title: "Report v2",
      nextFireAt: "2025-06-01T09:30:00.000Z",
    });
    expect(await invoke("pause", { id: "report" })).toMatchObject({ status: "paused", nextFireAt: null });
    expect(await invoke("resume", { id: "report" })).toMatchObject({
      status: "enabled",
      nextFireAt: "2025-06-01T09:30:00.000Z",
    });
    const listed = (await invoke("list", {})) as { tasks: Array<{ id: string; nextFireAt: string }> };
    expect(listed.tasks.map((task) => [task.id, task.nextFireAt])).toEqual([
      ["report", "2025-06-01T09:30:00.000Z"],
    ]);

    const run = await invoke("run", { id: "report", wait: true });
    expect(run).toMatchObject({ status: "succeeded", trigger: "manual" });
    await scheduler.idle();
    expect(await invoke("runs", { id: "report", last: 5 })).toHaveLength(1);
    expect(await invoke("delete", { id: "report" })).toEqual({ id: "report", deleted: true });
    await expect(invoke("runs", { id: "report" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(((await invoke("list", {})) as { tasks: unknown[] }).tasks).toEqual([]);
  });

  it("gives the agent task_* tools; a task created from a chat notifies that chat", async () => {
    const chatModel = createScriptedModel([
      {
        toolCalls: [
          {
            toolName: "task_create",
            input: { id: "standup", title: "Standup", when: "0 10 * * 1-5", body: "Post the standup" },
          },
        ],
      },
      {
        toolCalls: [
          { toolName: "task_create", input: { id: "broken", title: "B", when: "every day", body: "x" } },
        ],
      },
      (call) => `final: ${call.messages.at(-1)?.text ?? ""}`,
    ]);
    const chatRuntime = createAgentRuntime({
      rootDir: fx.rootDir,
      model: chatModel.model,
      tools: createTaskTools(scheduler),
    });
    try {
      const result = await chatRuntime.send({ contextId: "telegram:42", text: "remind me of standups" });
      expect(chatModel.calls[0]?.tools).toEqual(
        expect.arrayContaining([
          "task_list",
          "task_create",
          "task_update",
          "task_run",
          "task_pause",
          "task_resume",
          "task_delete",
          "task_runs",
        ]),
      );
      expect(await scheduler.get("standup")).toMatchObject({ notify: "telegram:42", when: "0 10 * * 1-5" });
      // The bad cron comes back to the model as a typed error quoting the expression, not a failed run.
      expect(result.text).toMatch(/INVALID_INPUT.*every day.*has 2 fields/);
    } finally {
      await chatRuntime.close();
    }
  });
});
