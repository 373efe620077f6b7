import { join } from "node:path";
import { type Logger, silentLogger } from "../../logger/logger.js";
import { contextDir } from "../../paths/downcity-paths.js";
import type { HistoryStore } from "../history-store.js";
import { createHistoryStore, type FileHistory } from "./file-history.js";

/** Options of `createFileHistoryStore`. */
export interface FileHistoryStoreOptions {
  rootDir: string;
  logger?: Logger;
  now?: () => Date;
  /** Where a context's history lives [`.downcity/context/<id>/messages`]. */
  historyDir?: (contextId: string) => string;
}

/** The histories of every context on files, one `FileHistory` per context, opened on first use. */
export function createFileHistoryStore(options: FileHistoryStoreOptions): HistoryStore & {
  context(contextId: string): FileHistory;
} {
  const histories = new Map<string, FileHistory>();
  const dirOf =
    options.historyDir ?? ((contextId: string) => join(contextDir(options.rootDir, contextId), "messages"));
  return {
    context(contextId) {
      let history = histories.get(contextId);
      if (!history) {
        history = createHistoryStore({
          dir: dirOf(contextId),
          logger: options.logger ?? silentLogger,
          ...(options.now ? { now: options.now } : {}),
        });
        histories.set(contextId, history);
      }
      return history;
    },
    close: async () => {
      const closing = [...histories.values()].map((history) => history.close());
      histories.clear();
      await Promise.all(closing);
    },
  };
}
