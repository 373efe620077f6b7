import { errorFields } from "@downcity/core";
import {
  createMemory,
  createMemoryPromptProvider,
  createMemoryService,
  createMemoryTools,
} from "@downcity/memory";
import type { Feature } from "./feature.js";

/** Memory: background extraction after each run, the memory prompt provider, memory_* tools and the `memory` service. */
export const memoryFeature: Feature = {
  name: "memory",
  async setup({ rootDir, config, runtime, model, logger }) {
    const settings = config.memory;
    if (settings?.enabled === false) return {};
    if (!model)
      logger.warn({}, 'memory extraction and compression are off until "llm" is set in downcity.json');
    const memory = createMemory({
      rootDir,
      history: (contextId) => runtime.history(contextId),
      logger,
      ...(model ? { model } : {}),
      ...(settings?.threshold ? { threshold: settings.threshold } : {}),
      ...(settings?.maxPrimaryChars ? { maxPrimaryChars: settings.maxPrimaryChars } : {}),
    });
    // Maintenance runs in the background after each run: it never blocks or fails the lane.
    const unsubscribe = runtime.on((event) => {
      if (event.type !== "run-end") return;
      memory
        .runMemoryMaintenance(event.contextId)
        .catch((error: unknown) =>
          logger.error({ contextId: event.contextId, ...errorFields(error) }, "memory maintenance crashed"),
        );
    });
    return {
      services: [createMemoryService(memory)],
      tools: [createMemoryTools(memory)],
      promptProviders: [
        createMemoryPromptProvider({
          rootDir,
          history: (contextId) => runtime.history(contextId),
          ...(settings?.promptBudgetChars ? { budgetChars: settings.promptBudgetChars } : {}),
        }),
      ],
      close: async () => {
        unsubscribe();
        await memory.close();
      },
    };
  },
};
