import type { HistoryMessage } from "../history/history-message.js";
import type { RuntimeHistory } from "../run/run-context.js";
import type { HistoryMeta } from "../store/history-store.js";
import { createRunSpans } from "./run-spans.js";

/** A context's history whose meta reads can be shared while a span is open. */
export interface SharedMetaHistory {
  history: RuntimeHistory;
  /**
   * Opens a span: until the returned function is called, `meta()` reads the store once and every
   * reader gets a copy of that read. A write through this history (`updateMeta`, `compact`) drops
   * it, so the next reader reads again. Outside a span every `meta()` reads the store.
   */
  share(): () => void;
}

/**
 * Wraps `history` so the readers of one run's start (the lost-background-job check, pinned skills)
 * share one meta read: meta is state other workers write, so it is shared only while the run's
 * start holds the span, never from one run to the next.
 */
export function shareableMeta(history: RuntimeHistory): SharedMetaHistory {
  let memo: Promise<HistoryMeta> | undefined;
  const spans = createRunSpans(() => {
    memo = undefined;
  });
  const read = (): Promise<HistoryMeta> => {
    if (!spans.active()) return history.meta();
    if (!memo) {
      const reading = history.meta();
      memo = reading;
      // A failed read is not shared: the next reader tries again, as without the span.
      reading.catch(() => {
        if (memo === reading) memo = undefined;
      });
    }
    return memo.then((meta) => structuredClone(meta));
  };
  const writing = async <T>(write: () => Promise<T>): Promise<T> => {
    memo = undefined;
    try {
      return await write();
    } finally {
      // A read that overlapped the write may hold the old meta.
      memo = undefined;
    }
  };
  const shared: RuntimeHistory = {
    ...(history.dir !== undefined ? { dir: history.dir } : {}),
    append: (messages, options) => history.append(messages, options),
    read: (options) => history.read(options),
    ...(history.findUserMessages
      ? {
          findUserMessages: (ids: readonly string[], options: { last: number }) =>
            history.findUserMessages!(ids, options),
        }
      : {}),
    ...(history.appendUnlessStored
      ? {
          appendUnlessStored: (messages: HistoryMessage[], options: { last: number; sync?: boolean }) =>
            history.appendUnlessStored!(messages, options),
        }
      : {}),
    readArchive: () => history.readArchive(),
    meta: read,
    updateMeta: (update) => writing(() => history.updateMeta(update)),
    compact: (options) => writing(() => history.compact(options)),
  };
  return {
    history: shared,
    share: spans.open,
  };
}
