import type { ShellSleepResult } from "../shell-results.js";

/** One progress report of a running `shell_sleep`. */
export interface ShellSleepTick {
  /** 1 for the first report, then 2, 3, ... */
  tick: number;
  slept_ms: number;
  remaining_ms: number;
  description: string;
}

/**
 * What ends a sleep early and where its progress goes; the host builds it from its own events
 * (a new message queued in the same conversation), since the shell package sees no lanes.
 */
export interface ShellSleepInterrupts {
  /** True when a message already waits for this conversation: the sleep then returns at once. */
  pending?(): boolean;
  /** Subscribes to "a new message arrived for this conversation"; returns the unsubscribe function. */
  onInterrupt(listener: () => void): () => void;
  /** Receives a progress report every `tick_interval_ms`; errors are ignored. */
  onTick?(tick: ShellSleepTick): void;
}

/**
 * Waits without any process until `duration_ms` passes, a new message arrives (`interrupts`), or
 * one of `signals` aborts (the run was cancelled); reports ticks along the way.
 */
export function shellSleep(
  args: { duration_ms: number; tick_interval_ms?: number | undefined; description: string },
  interrupts: ShellSleepInterrupts | undefined,
  signals: ReadonlyArray<AbortSignal | undefined>,
): Promise<ShellSleepResult> {
  const began = performance.now();
  const elapsed = (): number => Math.round(performance.now() - began);
  const aborted = signals.some((signal) => signal?.aborted);
  if (aborted) return Promise.resolve({ slept_ms: 0, interrupted: true, reason: "cancelled" });
  if (interrupts?.pending?.()) return Promise.resolve({ slept_ms: 0, interrupted: true, reason: "message" });
  return new Promise((resolve) => {
    const cleanups: Array<() => void> = [];
    const finish = (reason: ShellSleepResult["reason"]): void => {
      for (const cleanup of cleanups.splice(0)) cleanup();
      resolve({ slept_ms: elapsed(), interrupted: reason !== "elapsed", reason });
    };
    const timer = setTimeout(() => finish("elapsed"), args.duration_ms);
    cleanups.push(() => clearTimeout(timer));
    if (interrupts) cleanups.push(interrupts.onInterrupt(() => finish("message")));
    for (const signal of signals) {
      if (!signal) continue;
      const onAbort = (): void => finish("cancelled");
      signal.addEventListener("abort", onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener("abort", onAbort));
    }
    const { onTick } = interrupts ?? {};
    if (args.tick_interval_ms !== undefined && onTick) {
      let tick = 0;
      const ticker = setInterval(() => {
        tick++;
        const slept = elapsed();
        try {
          onTick({
            tick,
            slept_ms: slept,
            remaining_ms: Math.max(0, args.duration_ms - slept),
            description: args.description,
          });
        } catch {
          // Progress is best effort; a failing reporter must not end the sleep.
        }
      }, args.tick_interval_ms);
      cleanups.push(() => clearInterval(ticker));
    }
  });
}
