import type { HistoryMessage } from "../history/history-message.js";

/** How many contexts' cut points are remembered; the least recently cut is forgotten first. */
const rememberedContexts = 1000;

/** Where the model's view of each context's history starts when it has to be cut. */
export interface SteadyViews {
  /** The newest part of `tail` that `fits`, starting where the last cut did while that still fits. */
  cut(
    contextId: string,
    tail: HistoryMessage[],
    fits: (view: HistoryMessage[]) => Promise<boolean>,
  ): Promise<HistoryMessage[]>;
  /** The view fits uncut again (compaction worked): the next cut starts afresh. */
  forget(contextId: string): void;
}

/**
 * When compaction cannot shorten a history, the model's view is cut instead. Dropping just the oldest
 * message on every turn would change the start of the prompt on every turn, and no prefix cache would
 * ever hit; so a cut stays where it is and moves forward a quarter of the view at a time, only when
 * the view from it no longer fits.
 */
export function createSteadyViews(): SteadyViews {
  const starts = new Map<string, string>();
  return {
    async cut(contextId, tail, fits) {
      const remembered = starts.get(contextId);
      let from = Math.max(
        0,
        remembered === undefined ? 0 : tail.findIndex((message) => message.id === remembered),
      );
      const step = Math.max(1, Math.ceil(tail.length / 4));
      while (from < tail.length - 1 && !(await fits(tail.slice(from)))) from += step;
      from = Math.min(from, tail.length - 1);
      const first = tail[from];
      if (!first) return [];
      starts.delete(contextId);
      starts.set(contextId, first.id);
      if (starts.size > rememberedContexts) {
        const oldest = starts.keys().next().value;
        if (oldest !== undefined) starts.delete(oldest);
      }
      return tail.slice(from);
    },
    forget(contextId) {
      starts.delete(contextId);
    },
  };
}
