import { toContextId } from "../context/context-id.js";
import type { Logger } from "../logger/logger.js";
import type { RuntimeHistory } from "../run/run-context.js";
import { createHistoryStore } from "../store/file/file-history.js";
import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { HistoryStore } from "../store/history-store.js";
import { keepableTail } from "./kept-history-tail.js";
import { shareableMeta } from "./shared-history-meta.js";

/**
 * Each context's history, the span in which a run's readers share its meta (see `shareableMeta`),
 * and the span in which they share its tail (see `keepableTail`).
 */
export interface RuntimeHistories {
  (contextId: string): RuntimeHistory;
  shareMeta(contextId: string): () => void;
  keepTail(contextId: string): () => void;
}

interface ContextEntry {
  history: RuntimeHistory;
  share(): () => void;
  keep(): () => void;
}

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
}): RuntimeHistories {
  const files = createFileHistoryStore({
    rootDir: options.rootDir,
    logger: options.logger,
    now: options.now,
  });
  const histories = new Map<string, ContextEntry>();
  const entry = (contextId: string): ContextEntry => {
    const id = toContextId(contextId);
    let history = histories.get(id);
    if (!history) {
      const claimed = options.historyDir?.(id);
      const tail = keepableTail(
        claimed === undefined
          ? (options.shared ?? files).context(id)
          : createHistoryStore({ dir: claimed, logger: options.logger, now: options.now }),
      );
      const meta = shareableMeta(tail.history);
      history = { history: meta.history, share: meta.share, keep: tail.keep };
      histories.set(id, history);
    }
    return history;
  };
  return Object.assign((contextId: string) => entry(contextId).history, {
    shareMeta: (contextId: string) => entry(contextId).share(),
    keepTail: (contextId: string) => entry(contextId).keep(),
  });
}
