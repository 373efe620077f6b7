import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";

/** What `usePoll` returns: the latest value or error, and `refresh()` to load again now. */
export interface Polled<Value> {
  value: Value | undefined;
  error: string | undefined;
  refresh: () => Promise<void>;
}

/**
 * Loads `load()` now and then every `intervalMs` (0 = once) while the component is mounted;
 * reloads when `key` changes. An `initial` value is shown at once and the first load waits one interval.
 */
export function usePoll<Value>(
  load: () => Promise<Value>,
  intervalMs: number,
  key: string,
  initial?: Value,
): Polled<Value> {
  const [value, setValue] = useState<Value | undefined>(initial);
  const initialRef = useRef(initial);
  const [error, setError] = useState<string | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const refresh = useCallback(async () => {
    try {
      setValue(await loadRef.current());
      setError(undefined);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  }, []);
  // A layout effect starts the first load right after the first render instead of after a paint,
  // which is what makes the agents list appear in the first frames.
  useLayoutEffect(() => {
    const given = initialRef.current;
    initialRef.current = undefined;
    if (given === undefined) setValue(undefined);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      await refresh();
      if (!stopped && intervalMs > 0) timer = setTimeout(tick, intervalMs);
    };
    if (given === undefined) void tick();
    else if (intervalMs > 0) timer = setTimeout(tick, intervalMs);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [key, intervalMs, refresh]);
  return { value, error, refresh };
}
