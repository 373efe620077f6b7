import { until } from "@downcity/testkit";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../logger/logger.js";
import type { RuntimeEvent, RuntimeEventListener } from "../../run/runtime-event.js";
import type { ClusterEvent, ClusterEventBus } from "../../store/cluster-events.js";
import { createEventRelay, listeningEventType } from "./event-relay.js";

/** An in-memory bus: every batch reaches every other subscriber at once; batches are counted. */
function memoryBus() {
  const subscribers = new Set<{ worker: string; listener: (event: ClusterEvent, from: string) => void }>();
  const published: Array<{ worker: string; events: ClusterEvent[] }> = [];
  const bus: ClusterEventBus = {
    async publish(worker, events) {
      published.push({ worker, events: [...events] });
      for (const subscriber of subscribers)
        if (subscriber.worker !== worker) for (const event of events) subscriber.listener(event, worker);
    },
    subscribe(worker, listener) {
      const entry = { worker, listener };
      subscribers.add(entry);
      return () => subscribers.delete(entry);
    },
  };
  return { bus, published };
}

function fakeRuntime() {
  const listeners = new Set<RuntimeEventListener>();
  return {
    on(listener: RuntimeEventListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit: (event: RuntimeEvent) => {
      for (const listener of listeners) listener(event);
    },
  };
}

const runStart = (contextId: string) =>
  ({ type: "run-start", contextId, requestId: `r-${contextId}`, at: 0 }) as unknown as RuntimeEvent;

describe("event relay", () => {
  it("publishes a worker's events only while another worker listens", async () => {
    const { bus, published } = memoryBus();
    let clock = 1_000;
    const now = () => clock;
    const runtimeA = fakeRuntime();
    const a = createEventRelay({
      bus,
      runtime: runtimeA,
      workerId: "A",
      logger: silentLogger,
      flushMs: 1,
      now,
    });
    const b = createEventRelay({ bus, runtime: fakeRuntime(), workerId: "B", logger: silentLogger, now });
    try {
      // Nobody listens: A's run costs the bus nothing.
      runtimeA.emit(runStart("c1"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(published).toEqual([]);

      // B's console connects: B announces, and A's next events reach it (never the announcement).
      const seen: Array<{ type: string; contextId: string; worker: string }> = [];
      const off = b.onWorkerEvent((event, worker) =>
        seen.push({ type: event.type, contextId: event.contextId, worker }),
      );
      await b.listening();
      expect(published).toEqual([{ worker: "B", events: [{ type: listeningEventType, contextId: "" }] }]);
      runtimeA.emit(runStart("c2"));
      await until(() => seen.length === 1, "A's event on B");
      expect(seen).toEqual([{ type: "run-start", contextId: "c2", worker: "A" }]);

      // B's console goes away: A keeps publishing until 3x the announcement period, then stops.
      off();
      clock += 3 * 5000 - 1;
      runtimeA.emit(runStart("c3"));
      await until(() => published.length === 3, "A's last batch");
      clock += 1;
      runtimeA.emit(runStart("c4"));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(published.map((batch) => batch.events.map((event) => event.contextId))).toEqual([
        [""],
        ["c2"],
        ["c3"],
      ]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
