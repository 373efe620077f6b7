/** Time as the scheduler sees it: the current instant and one-shot timers (inject a fake one in tests). */
export interface TaskClock {
  now(): Date;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The real clock: `Date` and Node timers (unref'd so a pending fire never keeps the process alive). */
export const systemClock: TaskClock = Object.freeze({
  now: () => new Date(),
  setTimeout(callback: () => void, ms: number) {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  },
  clearTimeout(handle: unknown) {
    clearTimeout(handle as NodeJS.Timeout);
  },
});
