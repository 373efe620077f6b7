import { scaledMs } from "./time-scale.js";

/** What `until` does when it has to wait: its deadline and how often it asks. */
export interface UntilOptions {
  /** How long the wait takes at most on a quiet machine; stretched by `testTimeScale()` [20 s]. */
  timeoutMs?: number;
  /** The pause between two checks; it bounds latency only, never correctness [20 ms]. */
  intervalMs?: number;
  /**
   * The deadline is what the test claims ("the process dies within 500 ms"), so it is never stretched:
   * a time bound a test asserts stays the same on every machine.
   */
  fixed?: boolean;
}

/** A check `until` polls: done when it returns (or resolves to) anything but `undefined` or `false`. */
export type UntilCheck<T> = () => T | undefined | false | Promise<T | undefined | false>;

/**
 * Polls `check` until it returns something other than `undefined`/`false` and returns that value; fails
 * with `timed out after <ms> ms waiting for <what>` once the scaled deadline passes (`what` may be a
 * function, asked only then, to report what the test saw). A check that throws fails the wait at once.
 * A number as `options` is the timeout.
 */
export async function until<T>(
  check: UntilCheck<T>,
  what: string | (() => string),
  options: UntilOptions | number = {},
): Promise<T> {
  const {
    timeoutMs = 20_000,
    intervalMs = 20,
    fixed = false,
  } = typeof options === "number" ? { timeoutMs: options } : options;
  const budget = fixed ? timeoutMs : scaledMs(timeoutMs);
  const deadline = Date.now() + budget;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      const described = typeof what === "function" ? what() : what;
      throw new Error(`timed out after ${budget} ms waiting for ${described}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
