import { join } from "node:path";
import { toContextId } from "../context/context-id.js";
import { createHistoryStore } from "../history/history-store.js";
import type { Logger } from "../logger/logger.js";
import { contextDir } from "../paths/downcity-paths.js";
import type { ContextHistory, SharedHistoryStore } from "../store/shared-history-store.js";

/** A context's history as the runtime hands it out: the store contract, plus its folder when it lives on disk. */
export type RuntimeHistory = ContextHistory & { readonly dir?: string };

/**
 * Finds each context's history, once per context: a folder a plug-in claims (local to this worker),
 * else the shared store when several workers serve the agent, else `.downcity/context/<id>/messages`.
 */
export function createRuntimeHistories(options: {
  rootDir: string;
  logger: Logger;
  now: () => Date;
  historyDir?: (contextId: string) => string | undefined;
  shared?: SharedHistoryStore;
}): (contextId: string) => RuntimeHistory {
  const histories = new Map<string, RuntimeHistory>();
  return (contextId) => {
    const id = toContextId(contextId);
    let history = histories.get(id);
    if (!history) {
      const claimed = options.historyDir?.(id);
      history =
        claimed === undefined && options.shared
          ? options.shared.context(id)
          : createHistoryStore({
              dir: claimed ?? join(contextDir(options.rootDir, id), "messages"),
              logger: options.logger,
              now: options.now,
            });
      histories.set(id, history);
    }
    return history;
  };
}
