import { createTaskScheduler, createTaskService, createTaskTools, taskRunHistoryDir } from "@downcity/tasks";
import type { Feature } from "./feature.js";

/**
 * Tasks: the scheduler over `.downcity/task/`, the `task` service (`downcity task list|create|run|…`),
 * the `task_*` agent tools, and run histories kept in their run folders.
 */
export const tasksFeature: Feature = {
  name: "tasks",
  historyDir: (rootDir, contextId) => taskRunHistoryDir(rootDir, contextId),
  async setup({ rootDir, config, runtime, logger }) {
    if (config.tasks?.enabled === false) return {};
    const scheduler = createTaskScheduler({ rootDir, runtime, logger });
    await scheduler.start();
    return {
      services: [createTaskService(scheduler)],
      tools: [createTaskTools(scheduler)],
      close: () => scheduler.close(),
    };
  },
};
