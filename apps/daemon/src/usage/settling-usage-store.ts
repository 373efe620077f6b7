import type { UsageStore } from "@downcity/core";

/** A usage store whose appends under way can be waited for. */
export interface SettlingUsageStore extends UsageStore {
  /** Resolves once every append made so far has settled, and those made while waiting too. */
  settled(): Promise<void>;
}

/**
 * `store` with its appends tracked. The daemon writes usage without waiting (a model call never
 * waits for its record), so its stop waits here instead: the records of the last calls are on disk
 * (or in the shared store, before its pool closes) when the process exits.
 */
export function settlingUsageStore(store: UsageStore): SettlingUsageStore {
  const underWay = new Set<Promise<void>>();
  const ignore = () => {};
  return {
    append(record) {
      const appended = store.append(record);
      const settled: Promise<void> = appended.then(ignore, ignore).finally(() => underWay.delete(settled));
      underWay.add(settled);
      return appended;
    },
    read: (filter) => store.read(filter),
    ...(store.prune ? { prune: store.prune.bind(store) } : {}),
    async settled() {
      while (underWay.size > 0) await Promise.all(underWay);
    },
  };
}
