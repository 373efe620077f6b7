import { definePlugin, errorFields, packageVersion } from "@downcity/core";
import { z } from "zod";
import { createMemory } from "../create-memory.js";
import { createPromptReads } from "../maintenance/prompt-reads.js";
import { createMemoryPromptProvider } from "../prompt/memory-prompt-provider.js";
import { createMemoryService } from "./memory-service.js";
import { createMemoryTools } from "./memory-tools.js";

/** The `memory` section of `downcity.json`. */
export const memoryConfigSchema = z.strictObject({
  threshold: z.number().int().min(1).default(40).describe("New messages in a context before extraction runs"),
  maxPrimaryChars: z.number().int().min(1000).default(15000),
  promptBudgetChars: z.number().int().min(500).default(6000),
});

/** Memory as a plug-in: extraction after each run, the memory prompt provider, memory_* tools and the `memory` service. */
export const memoryPlugin = definePlugin({
  name: "memory",
  version: packageVersion(import.meta.url, "@downcity/memory"),
  config: memoryConfigSchema,
  setup({ rootDir, config, runtime, model, logger, store }) {
    if (!model)
      logger.warn({}, 'memory extraction and compression are off until "llm" is set in downcity.json');
    // On a shared store memory lives there, so every worker remembers what any other learned.
    const memoryStore = store?.memory;
    const memory = createMemory({
      rootDir,
      ...(memoryStore ? { store: memoryStore } : {}),
      history: (contextId) => runtime.history(contextId),
      logger,
      ...(model ? { model } : {}),
      threshold: config.threshold,
      maxPrimaryChars: config.maxPrimaryChars,
    });
    // What a run's prompt read of its context's memory is handed to the maintenance after it.
    const promptReads = createPromptReads();
    // Maintenance runs in the background after each run: it never blocks or fails the lane.
    const unsubscribe = runtime.on((event) => {
      if (event.type === "run-error") promptReads.take(event.requestId);
      if (event.type !== "run-end") return;
      const read = promptReads.take(event.requestId);
      memory
        .runMemoryMaintenance(event.contextId, read ? { read } : {})
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
          ...(memoryStore ? { store: memoryStore } : {}),
          history: (contextId) => runtime.history(contextId),
          budgetChars: config.promptBudgetChars,
          onContextRead: (context, documents) => promptReads.put(context.requestId, documents),
        }),
      ],
      close: async () => {
        unsubscribe();
        await memory.close();
      },
    };
  },
});
