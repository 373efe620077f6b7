import { definePlugin, internalInboxEvent, packageVersion } from "@downcity/core";
import { z } from "zod";
import { taskRunHistoryDir } from "../definition/task-paths.js";
import { createTaskScheduler } from "../scheduler/task-scheduler.js";
import { createTaskService } from "./task-service.js";
import { createTaskTools } from "./task-tools.js";

/** On a shared store nothing watches the task files: other workers' edits are read this often. */
const sharedRescanMs = 2000;

/**
 * Tasks as a plug-in: the scheduler over the store's tasks (`.downcity/task/` by default), the `task`
 * service, `task_*` tools, run histories in run folders. A run's result reaches its notify context as
 * a `task-notice` inbox event, so it runs under that context's claim like any chat message.
 */
export const tasksPlugin = definePlugin({
  name: "tasks",
  version: packageVersion(import.meta.url, "@downcity/tasks"),
  config: z.strictObject({
    schedulerLeaseMs: z
      .number()
      .int()
      .min(1000)
      .optional()
      .describe(
        "On a shared store: how long the scheduler lease lasts unrenewed, so how soon another worker fires after the scheduling one died (default 15000)",
      ),
  }),
  async setup({ rootDir, runtime, logger, config, store, submit }) {
    const shared = store?.tasks;
    if (store && !shared)
      logger.warn(
        { store: store.kind },
        "the store keeps no tasks: each worker schedules its own .downcity/task/ (every worker fires them)",
      );
    const scheduler = createTaskScheduler({
      rootDir,
      runtime,
      logger,
      ...(shared ? { store: shared, rescanIntervalMs: sharedRescanMs } : {}),
      ...(config.schedulerLeaseMs ? { leaseMs: config.schedulerLeaseMs } : {}),
      ...(submit
        ? {
            announce: async ({ notify, text, taskId, runId }) => {
              await submit(
                internalInboxEvent({
                  kind: "task-notice",
                  contextId: notify,
                  eventId: `task-notice:${taskId}:${runId}`,
                  text,
                }),
              );
            },
          }
        : {}),
    });
    await scheduler.start();
    return {
      services: [createTaskService(scheduler)],
      tools: [createTaskTools(scheduler)],
      historyDir: (contextId) => taskRunHistoryDir(rootDir, contextId),
      close: () => scheduler.close(),
    };
  },
});
