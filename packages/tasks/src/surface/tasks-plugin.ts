import { definePlugin, packageVersion } from "@downcity/core";
import { z } from "zod";
import { taskRunHistoryDir } from "../definition/task-paths.js";
import { createTaskScheduler } from "../scheduler/task-scheduler.js";
import { createTaskService } from "./task-service.js";
import { createTaskTools } from "./task-tools.js";

/** Tasks as a plug-in: the scheduler over `.downcity/task/`, the `task` service, `task_*` tools, run histories in run folders. */
export const tasksPlugin = definePlugin({
  name: "tasks",
  version: packageVersion(import.meta.url, "@downcity/tasks"),
  config: z.strictObject({}),
  async setup({ rootDir, runtime, logger }) {
    const scheduler = createTaskScheduler({ rootDir, runtime, logger });
    await scheduler.start();
    return {
      services: [createTaskService(scheduler)],
      tools: [createTaskTools(scheduler)],
      historyDir: (contextId) => taskRunHistoryDir(rootDir, contextId),
      close: () => scheduler.close(),
    };
  },
});
