import { toContextId } from "../context/context-id.js";
import type { Logger } from "../logger/logger.js";
import type { RuntimeHistory } from "../run/run-context.js";
import { createHistoryStore } from "../store/file/file-history.js";
import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { HistoryStore } from "../store/history-store.js";

/**
 * Finds each context's history, once per context: a folder a plug-in claims (local to this worker),
 * else the configured store's history, else the file store's (`.downcity/context/<id>/messages`).
 */
export function createRuntimeHistories(options: {
  rootDir: string;
  logger: Logger;
  now: () => Date;
  historyDir?: (contextId: string) => string | undefined;
  shared?: HistoryStore;
}): (contextId: string) => RuntimeHistory {
  const files = createFileHistoryStore({
    rootDir: options.rootDir,
    logger: options.logger,
    now: options.now,
  });
  const histories = new Map<string, RuntimeHistory>();
  return (contextId) => {
    const id = toContextId(contextId);
    let history = histories.get(id);
    if (!history) {
      const claimed = options.historyDir?.(id);
      history =
        claimed === undefined
          ? (options.shared ?? files).context(id)
          : createHistoryStore({ dir: claimed, logger: options.logger, now: options.now });
      histories.set(id, history);
    }
    return history;
  };
}
