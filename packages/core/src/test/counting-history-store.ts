import { createFileHistoryStore } from "../store/file/file-history-store.js";
import type { ContextHistory, HistoryStore } from "../store/history-store.js";

/**
 * A file history store whose calls of one context method (`read`, `meta`) are counted: what the
 * store is asked, not what callers get. For tests of the runtime's reuse of reads (not exported).
 */
export function countingHistoryStore(
  rootDir: string,
  method: "read" | "meta",
): { store: HistoryStore; calls: () => number } {
  const files = createFileHistoryStore({ rootDir });
  let calls = 0;
  const store: HistoryStore = {
    context(contextId) {
      const history = files.context(contextId);
      const counted = ((...args: Parameters<ContextHistory[typeof method]>) => {
        calls += 1;
        return (history[method] as (...given: typeof args) => unknown)(...args);
      }) as ContextHistory[typeof method];
      return { ...history, [method]: counted };
    },
    close: () => files.close(),
  };
  return { store, calls: () => calls };
}
