/** A runtime event (`run-start`, `text-delta`, `tool-end`, `run-end`, …) as it travels between workers. */
export interface ClusterEvent {
  type: string;
  contextId: string;
  [field: string]: unknown;
}

/**
 * Live runtime events between the workers of one store, so a console or `chat` stream connected to
 * one worker sees the runs of every worker. Best effort: an event a worker misses (its listening
 * connection was down) is not sent again; the journal and history keep what happened. Absent on a
 * store one worker serves.
 */
export interface ClusterEventBus {
  /** Sends events of `worker` to the other workers (long texts may be shortened to fit a notification). */
  publish(worker: string, events: readonly ClusterEvent[]): Promise<void>;
  /** Calls `listener` with every event another worker published; returns the unsubscribe function. */
  subscribe(worker: string, listener: (event: ClusterEvent, from: string) => void): () => void;
}
