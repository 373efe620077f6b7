import type { TaskClock } from "../scheduler/task-clock.js";

/** A controllable clock for tests: time only moves through `advance`/`set`, timers fire in order. */
export interface FakeClock extends TaskClock {
  /** Timers not yet fired. */
  pending(): number;
  /** When the earliest pending timer fires, if any. */
  nextTimerAt(): Date | undefined;
  /** Moves time forward, firing each due timer at its own time (yielding to I/O after each). */
  advance(ms: number): Promise<void>;
  /** Moves time to an instant (never backwards). */
  set(at: Date | string): Promise<void>;
}

const settle = async () => {
  for (let index = 0; index < 5; index++) await new Promise((resolve) => setImmediate(resolve));
};

/** Creates a fake clock starting at `start`. */
export function createFakeClock(start: Date | string): FakeClock {
  let now = new Date(start).getTime();
  let nextId = 1;
  const timers = new Map<number, { at: number; callback: () => void }>();
  const advanceTo = async (target: number) => {
    for (;;) {
      let earliest: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of timers) if (!earliest || entry[1].at < earliest[1].at) earliest = entry;
      if (!earliest || earliest[1].at > target) break;
      timers.delete(earliest[0]);
      now = Math.max(now, earliest[1].at);
      earliest[1].callback();
      await settle();
    }
    now = Math.max(now, target);
    await settle();
  };
  return {
    now: () => new Date(now),
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    pending: () => timers.size,
    nextTimerAt() {
      let earliest: number | undefined;
      for (const { at } of timers.values()) if (earliest === undefined || at < earliest) earliest = at;
      return earliest === undefined ? undefined : new Date(earliest);
    },
    advance: (ms) => advanceTo(now + ms),
    set: (at) => advanceTo(new Date(at).getTime()),
  };
}
