import type { HistoryMessage } from "../history/history-message.js";
import type { RuntimeHistory } from "../run/run-context.js";
import { createRunSpans } from "./run-spans.js";

/** A context's history whose newest messages can be kept in memory while a run holds the context. */
export interface KeptTailHistory {
  history: RuntimeHistory;
  /**
   * Opens a span: until the returned function is called, the last tail read through this history
   * (`read({ last })`) is kept and extended by this history's own appends, and a later
   * `read({ last })` that it covers is answered from it. A compaction drops it; a read or an append
   * that overlapped another append is not kept. Outside a span every read goes to the store.
   */
  keep(): () => void;
}

interface Tail {
  messages: readonly HistoryMessage[];
  /** The tail reaches the history's first message (the read asked for more than there were). */
  whole: boolean;
}

/**
 * Wraps `history` so the readers of one run (the model's window, `run-end` listeners such as
 * memory maintenance) share the run's tail read: history is state other workers write, but not
 * while this worker runs the context (its event's claim keeps other workers out until the run has
 * ended), so the tail is kept only from the run's start to its end, never from one run to the next.
 */
export function keepableTail(history: RuntimeHistory): KeptTailHistory {
  let kept: Tail | undefined;
  const spans = createRunSpans(() => {
    kept = undefined;
  });
  // Moves on every write: a read or an append that overlapped another write keeps nothing.
  let version = 0;

  const read = async (options: { last?: number } = {}): Promise<HistoryMessage[]> => {
    const { last } = options;
    if (spans.active() && kept && last !== undefined && (kept.whole || last <= kept.messages.length))
      return last <= 0 ? [] : kept.messages.slice(-last);
    const before = version;
    const messages = await history.read(options);
    if (spans.active() && version === before && last !== undefined && last > 0)
      kept = { messages: [...messages], whole: messages.length < last };
    return messages;
  };

  const writing = async <T>(write: () => Promise<T>, extend?: (tail: Tail) => Tail): Promise<T> => {
    const base = kept;
    kept = undefined;
    const mine = ++version;
    const result = await write();
    // Extended only when no other write came between (its outcome is the store's to tell).
    if (base && extend && spans.active() && version === mine) kept = extend(base);
    return result;
  };

  const wrapped: RuntimeHistory = {
    ...history,
    append: (messages, options) => {
      const list = Array.isArray(messages) ? messages : [messages];
      // Copies: the caller's objects may change after the append (a run stamps its messages).
      return writing(
        () => history.append(messages, options),
        (tail) => ({ messages: [...tail.messages, ...structuredClone(list)], whole: tail.whole }),
      );
    },
    ...(history.appendUnlessStored
      ? {
          appendUnlessStored: (messages: HistoryMessage[], options: { last: number; sync?: boolean }) =>
            writing(() => history.appendUnlessStored!(messages, options)),
        }
      : {}),
    read,
    compact: (options) => writing(() => history.compact(options)),
  };
  return {
    history: wrapped,
    keep: spans.open,
  };
}
