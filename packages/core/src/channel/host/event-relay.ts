import type { AgentRuntime } from "../../agent/agent-runtime.js";
import { errorFields, type Logger } from "../../logger/logger.js";
import type { RuntimeEvent } from "../../run/runtime-event.js";
import type { ClusterEvent, ClusterEventBus } from "../../store/cluster-events.js";

/** A runtime event of another worker, with that worker's id. */
export type WorkerEventListener = (event: RuntimeEvent, worker: string) => void;

/** This worker's side of the cluster's live events; see `createEventRelay`. */
export interface EventRelay {
  /**
   * Calls `listener` with the runtime events other workers publish. The first listener makes this
   * worker announce that it listens (and renew that while any listener is left).
   */
  onWorkerEvent(listener: WorkerEventListener): () => void;
  /** Resolves once the latest announcement was sent (at once when there is none). */
  listening(): Promise<void>;
  /** Sends what is still buffered and stops. */
  close(): Promise<void>;
}

/** The event a worker with listeners publishes every `announceMs`; never handed to listeners. */
export const listeningEventType = "workers-listening";

/** Options of `createEventRelay`. */
export interface EventRelayOptions {
  bus: ClusterEventBus;
  runtime: Pick<AgentRuntime, "on">;
  workerId: string;
  logger: Logger;
  /** How long events are gathered into one notification [100 ms]. */
  flushMs?: number;
  /** How often a worker with listeners says so [5 s]; a worker publishes for 3x this after it last heard one. */
  announceMs?: number;
  now?: () => number;
}

/**
 * Publishes this worker's runtime events to the store's event bus, batched every `flushMs` (one
 * notification per batch, not per streamed token), and hands the other workers' events to local
 * listeners (the daemon's SSE streams). Events are published only while another worker listens:
 * a worker with listeners announces it every `announceMs`, and the others publish until 3x that
 * after the last announcement they heard. Without a console or `chat` stream anywhere, a run costs
 * the bus nothing (it was one durable insert and notification per batch, decoded by every worker).
 */
export function createEventRelay(options: EventRelayOptions): EventRelay {
  const { bus, workerId, logger } = options;
  const now = options.now ?? Date.now;
  const announceMs = options.announceMs ?? 5000;
  let buffer: RuntimeEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let failing = false;
  // Until when another worker is known to listen.
  let heardUntil = 0;
  const publish = async (events: readonly ClusterEvent[]) => {
    try {
      await bus.publish(workerId, events);
      failing = false;
    } catch (error) {
      // Live events are a view: a failed batch is dropped (history and the journal keep the facts).
      if (!failing) logger.warn(errorFields(error), "could not publish live events to the other workers");
      failing = true;
    }
  };
  const flush = async () => {
    timer = undefined;
    const batch = buffer;
    buffer = [];
    if (batch.length > 0) await publish(batch);
  };
  const off = options.runtime.on((event) => {
    if (now() >= heardUntil) return;
    buffer.push(event);
    timer ??= setTimeout(() => void flush(), options.flushMs ?? 100);
  });
  const listeners = new Set<WorkerEventListener>();
  const unsubscribe = bus.subscribe(workerId, (event, from) => {
    if (event.type === listeningEventType) {
      heardUntil = now() + 3 * announceMs;
      return;
    }
    for (const listener of listeners) listener(event as RuntimeEvent, from);
  });
  let announced: Promise<void> = Promise.resolve();
  let announcer: NodeJS.Timeout | undefined;
  const announce = () => {
    announced = publish([{ type: listeningEventType, contextId: "" }]);
  };
  return {
    onWorkerEvent(listener) {
      listeners.add(listener);
      if (!announcer) {
        announce();
        announcer = setInterval(announce, announceMs);
        announcer.unref();
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size > 0 || !announcer) return;
        clearInterval(announcer);
        announcer = undefined;
      };
    },
    listening: () => announced,
    async close() {
      off();
      unsubscribe();
      if (timer) clearTimeout(timer);
      if (announcer) clearInterval(announcer);
      await flush();
    },
  };
}
