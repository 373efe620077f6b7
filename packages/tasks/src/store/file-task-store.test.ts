import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openFileStore } from "@downcity/core";
import { testTaskStore } from "@downcity/core/test";
import { expect, it } from "vitest";
import { createFileTaskStore } from "./file-task-store.js";

testTaskStore({
  name: "file store",
  sharedByWorkers: false,
  async create() {
    const rootDir = await mkdtemp(join(tmpdir(), "downcity-task-store-"));
    return {
      async open() {
        const store = await openFileStore({ rootDir });
        return { ...store, tasks: createFileTaskStore({ rootDir }) };
      },
      cleanup: () => rm(rootDir, { recursive: true, force: true }),
    };
  },
});

it("keeps a task as .downcity/task/<id>/task.md and a run as <id>/<runId>/run.json", async () => {
  const rootDir = await mkdtemp(join(tmpdir(), "downcity-task-store-"));
  try {
    const tasks = createFileTaskStore({ rootDir });
    await tasks.write("report", '---\ntitle: R\nwhen: "@daily"\n---\n\nDo it.\n');
    await tasks.saveRun({ taskId: "report", runId: "2030-01-01T09-00-00-000Z", status: "running" });
    const dir = join(rootDir, ".downcity", "task", "report");
    expect(await readFile(join(dir, "task.md"), "utf8")).toContain("title: R");
    expect(JSON.parse(await readFile(join(dir, "2030-01-01T09-00-00-000Z", "run.json"), "utf8"))).toEqual({
      taskId: "report",
      runId: "2030-01-01T09-00-00-000Z",
      status: "running",
    });
    expect(tasks.pathOf("report")).toBe(join(dir, "task.md"));
  } finally {
    await rm(rootDir, { recursive: true, force: true });
  }
});
