/** Spans a run opens on a wrapped history: something is shared only while at least one is open. */
export interface RunSpans {
  /** True while at least one span is open. */
  active(): boolean;
  /** Opens a span; the returned function closes it (again: no effect). */
  open(): () => void;
}

/** Counts open spans and calls `onLastClosed` when the last one closes (to drop what was shared). */
export function createRunSpans(onLastClosed: () => void): RunSpans {
  let open = 0;
  return {
    active: () => open > 0,
    open() {
      open += 1;
      let closed = false;
      return () => {
        if (closed) return;
        closed = true;
        open -= 1;
        if (open === 0) onLastClosed();
      };
    },
  };
}
