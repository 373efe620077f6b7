import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { RuntimeEvent } from "../../run/runtime-event.js";
import type { ClusterEventBus } from "../../store/cluster-events.js";

/** A runtime event of another worker, with that worker's id. */
export type WorkerEventListener = (event: RuntimeEvent, worker: string) => void;

/** This worker's side of the cluster's live events; see `createEventRelay`. */
export interface EventRelay {
  /** Calls `listener` with the runtime events other workers publish. */
  onWorkerEvent(listener: WorkerEventListener): () => void;
  /** Sends what is still buffered and stops. */
  close(): Promise<void>;
}

/**
 * Publishes this worker's runtime events to the store's event bus, batched every `flushMs` (one
 * notification per batch, not per streamed token), and hands the other workers' events to local
 * listeners (the daemon's SSE streams).
 */
export function createEventRelay(options: {
  bus: ClusterEventBus;
  runtime: Pick<AgentRuntime, "on">;
  workerId: string;
  logger: Logger;
  flushMs?: number;
}): EventRelay {
  const { bus, workerId, logger } = options;
  let buffer: RuntimeEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  const flush = async () => {
    timer = undefined;
    const batch = buffer;
    buffer = [];
    if (batch.length === 0) return;
    try {
      await bus.publish(workerId, batch);
      failing = false;
    } catch (error) {
      // Live events are a view: a failed batch is dropped (history and the journal keep the facts).
      if (!failing) logger.warn(errorFields(error), "could not publish live events to the other workers");
      failing = true;
    }
  };
  const off = options.runtime.on((event) => {
    buffer.push(event);
    timer ??= setTimeout(() => void flush(), options.flushMs ?? 100);
  });
  const listeners = new Set<WorkerEventListener>();
  const unsubscribe = bus.subscribe(workerId, (event, from) => {
    for (const listener of listeners) listener(event as RuntimeEvent, from);
  });
  return {
    onWorkerEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      off();
      unsubscribe();
      if (timer) clearTimeout(timer);
      await flush();
    },
  };
}
