/** Runs one lane's work; `drain()` takes the items queued for that lane so far (used at start and step boundaries). */
export type LaneRunner<Item> = (laneId: string, drain: () => Item[]) => Promise<void>;

/** Serial per lane, at most `maxConcurrency` lanes at once, runnable lanes served first-in first-out. */
export interface LaneScheduler<Item> {
  enqueue(laneId: string, item: Item): void;
  /** Removes and returns every queued item of every lane (used on shutdown). */
  drainAll(): Item[];
  running(): number;
  queued(): number;
  /** Resolves when no lane runs and none is queued. */
  idle(): Promise<void>;
}

interface Lane<Item> {
  pending: Item[];
  running: boolean;
  runnable: boolean;
}

/** Creates a lane scheduler that calls `run` for each lane that has work. */
export function createLaneScheduler<Item>(options: {
  maxConcurrency: number;
  run: LaneRunner<Item>;
  onRunnerError?: (laneId: string, error: unknown) => void;
}): LaneScheduler<Item> {
  const lanes = new Map<string, Lane<Item>>();
  const runnable: string[] = [];
  let active = 0;
  let idleWaiters: Array<() => void> = [];

  const settleIdle = () => {
    if (active === 0 && runnable.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  const pump = () => {
    while (active < options.maxConcurrency && runnable.length > 0) {
      const laneId = runnable.shift() as string;
      const lane = lanes.get(laneId);
      if (!lane) continue;
      lane.runnable = false;
      if (lane.pending.length === 0) {
        if (!lane.running) lanes.delete(laneId);
        continue;
      }
      lane.running = true;
      active++;
      const drain = () => lane.pending.splice(0, lane.pending.length);
      Promise.resolve()
        .then(() => options.run(laneId, drain))
        .catch((error) => options.onRunnerError?.(laneId, error))
        .finally(() => {
          lane.running = false;
          active--;
          if (lane.pending.length > 0) {
            lane.runnable = true;
            runnable.push(laneId);
          } else {
            lanes.delete(laneId);
          }
          pump();
          settleIdle();
        });
    }
  };

  return {
    enqueue(laneId, item) {
      let lane = lanes.get(laneId);
      if (!lane) {
        lane = { pending: [], running: false, runnable: false };
        lanes.set(laneId, lane);
      }
      lane.pending.push(item);
      if (!lane.running && !lane.runnable) {
        lane.runnable = true;
        runnable.push(laneId);
      }
      pump();
    },
    drainAll() {
      const items: Item[] = [];
      for (const lane of lanes.values()) items.push(...lane.pending.splice(0, lane.pending.length));
      runnable.length = 0;
      for (const [laneId, lane] of lanes) {
        lane.runnable = false;
        if (!lane.running) lanes.delete(laneId);
      }
      settleIdle();
      return items;
    },
    running: () => active,
    queued: () => [...lanes.values()].reduce((count, lane) => count + lane.pending.length, 0),
    idle() {
      if (active === 0 && runnable.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}
